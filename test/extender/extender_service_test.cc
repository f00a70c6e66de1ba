#include "extender/extender_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "net/curl_http_client.h"
#include "test/testing/fake_clock.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::extender {

using placement::LocationCarbon;
using placement::PlacementFacts;
using placement::PlacementModel;
using placement::ScoringOptions;
namespace {

using ::testing::HasSubstr;
using testing::IsOk;

const absl::Time kServiceNow = absl::FromUnixSeconds(1'800'000'000);

class ExtenderServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto model = std::make_shared<PlacementFacts>();
    model->built_at = kServiceNow - absl::Seconds(10);
    LocationCarbon se;
    se.grams_per_kwh = 30;
    model->carbon["SE"] = se;
    LocationCarbon pl;
    pl.grams_per_kwh = 700;
    model->carbon["PL"] = pl;
    model->nodes = {{"n-se", {"SE", "r1"}}, {"n-pl", {"PL", "r2"}}};
    models_.Set(std::make_shared<const PlacementModel>(*model));
    service_ = std::make_unique<ExtenderService>(models_, ScoringOptions{}, clock_, *registry_);
    net::HttpServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.routes = service_->Routes(registry_);
    options.max_body_bytes = 64 * 1024;
    server_ = *net::HttpServer::Start(std::move(options));
    http_ = *net::CurlHttpClient::Create("test");
  }
  net::HttpResponse Post(const std::string& path, const std::string& body,
                         const std::string& method = "POST") {
    net::HttpRequest request;
    request.method = method;
    request.url = absl::StrCat("http://127.0.0.1:", server_->port(), path);
    request.body = body;
    request.headers.emplace_back("Content-Type", "application/json");
    absl::StatusOr<net::HttpResponse> response = http_->Send(request);
    EXPECT_THAT(response, IsOk());
    return response.ok() ? *response : net::HttpResponse{};
  }

  testing::FakeClock clock_{kServiceNow};
  ModelStore models_;
  std::shared_ptr<prometheus::Registry> registry_ = std::make_shared<prometheus::Registry>();
  std::unique_ptr<ExtenderService> service_;
  std::unique_ptr<net::HttpServer> server_;
  std::unique_ptr<net::CurlHttpClient> http_;
};

TEST_F(ExtenderServiceTest, FilterAndPrioritizeOverHttp) {
  const std::string args =
      R"({"Pod":{"metadata":{"name":"p"}},"Nodes":null,"NodeNames":["n-pl","n-se"]})";
  net::HttpResponse filter = Post("/filter", args);
  EXPECT_EQ(filter.status, 200);
  EXPECT_EQ(filter.headers["content-type"], "application/json");
  EXPECT_EQ(nlohmann::json::parse(filter.body)["NodeNames"], nlohmann::json({"n-pl", "n-se"}));
  net::HttpResponse prioritize = Post("/prioritize", args);
  EXPECT_EQ(prioritize.status, 200);
  EXPECT_EQ(prioritize.body, R"([{"Host":"n-pl","Score":0},{"Host":"n-se","Score":10}])");
  const std::string metrics = Post("/metrics", "", "GET").body;
  EXPECT_THAT(
      metrics,
      HasSubstr("carbonroute_scheduler_extender_requests_total{code=\"200\",verb=\"filter\"} 1"));
  EXPECT_THAT(metrics, HasSubstr("carbonroute_scheduler_decisions_total{location=\"SE\"} 1"));
  EXPECT_THAT(
      metrics,
      HasSubstr(
          "carbonroute_scheduler_extender_request_duration_seconds_count{verb=\"prioritize\"} 1"));
  EXPECT_THAT(metrics, HasSubstr("carbonroute_scheduler_model_age_seconds 10"));
}

TEST_F(ExtenderServiceTest, MalformedInputIs400WithErrorSet) {
  net::HttpResponse bad = Post("/filter", "{not json");
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(nlohmann::json::parse(bad.body)["Error"].get<std::string>(),
              HasSubstr("not valid JSON"));
  net::HttpResponse wrong_type = Post("/prioritize", R"({"Pod":{},"NodeNames":[1]})");
  EXPECT_EQ(wrong_type.status, 400);
  EXPECT_THAT(wrong_type.body, HasSubstr("NodeNames[0] is not a string"));
  EXPECT_EQ(Post("/filter", "", "GET").status, 405);
  // Over the body limit: refused from its Content-Length. The client waits for the
  // server's answer before sending the body (Expect: 100-continue, RFC 9110 §10.1.1);
  // without it, a client still writing into a connection the server closes after its
  // 413 may see the pipe break instead of the answer (it did under TSan).
  net::HttpRequest oversized;
  oversized.method = "POST";
  oversized.url = absl::StrCat("http://127.0.0.1:", server_->port(), "/filter");
  oversized.body = std::string(100 * 1024, ' ');
  oversized.headers = {{"Content-Type", "application/json"}, {"Expect", "100-continue"}};
  absl::StatusOr<net::HttpResponse> huge = http_->Send(oversized);
  ASSERT_THAT(huge, IsOk());
  EXPECT_EQ(huge->status, 413);
  const std::string metrics = Post("/metrics", "", "GET").body;
  EXPECT_THAT(
      metrics,
      HasSubstr("carbonroute_scheduler_extender_requests_total{code=\"400\",verb=\"filter\"} 1"));
}

TEST_F(ExtenderServiceTest, HealthNeedsAModel) {
  EXPECT_EQ(Post("/healthz", "", "GET").status, 200);
  models_.Set(nullptr);
  EXPECT_EQ(Post("/healthz", "", "GET").status, 503);
  // Without a model every node passes the filter unchanged and scores 0: never a crash.
  net::HttpResponse filter = Post("/filter", R"({"Pod":{},"NodeNames":["x"]})");
  EXPECT_EQ(filter.status, 200);
  EXPECT_EQ(nlohmann::json::parse(filter.body)["NodeNames"], nlohmann::json({"x"}));
}

TEST_F(ExtenderServiceTest, WithoutAnyCarbonReadingItFailsOpenAndSaysWhy) {
  // The carbon role is down: the latency role's nodes and RTTs, no carbon.
  auto facts = std::make_shared<PlacementFacts>();
  facts->built_at = kServiceNow;
  facts->nodes = {{"n-se", {"SE", "r1"}}, {"n-pl", {"PL", "r2"}}};
  facts->rtt["n-app"]["n-se"] = {absl::Milliseconds(30), RttMethod::kMeasured, kServiceNow};
  facts->rtt["n-app"]["n-pl"] = {absl::Milliseconds(5), RttMethod::kMeasured, kServiceNow};
  models_.Set(std::make_shared<const PlacementModel>(*facts));
  const std::string args =
      R"({"Pod":{"metadata":{"name":"p","labels":{"delay_n-app":"25"}}},"Nodes":null,)"
      R"("NodeNames":["n-pl","n-se"]})";
  net::HttpResponse filter = Post("/filter", args);
  EXPECT_EQ(filter.status, 200);  // latency limits still hold: n-se is 30 ms away
  EXPECT_EQ(nlohmann::json::parse(filter.body)["NodeNames"], nlohmann::json({"n-pl"}));
  net::HttpResponse prioritize =
      Post("/prioritize", R"({"Pod":{},"Nodes":null,"NodeNames":["n-pl","n-se"]})");
  EXPECT_EQ(prioritize.status, 200);  // carbon scores equal (and no latency origin): a tie
  EXPECT_EQ(prioritize.body, R"([{"Host":"n-pl","Score":0},{"Host":"n-se","Score":0}])");
  net::HttpResponse health = Post("/healthz", "", "GET");
  EXPECT_EQ(health.status, 200);
  EXPECT_THAT(health.body, HasSubstr("no carbon reading from any source"));
  EXPECT_THAT(Post("/metrics", "", "GET").body,
              HasSubstr("carbonroute_scheduler_model_carbon_locations 0"));
}

TEST_F(ExtenderServiceTest, ALatencyLimitIsNotMetWithoutAFreshModel) {
  const std::string limited =
      R"({"Pod":{"metadata":{"name":"p","labels":{"delay_n-se":"25"}}},"Nodes":null,)"
      R"("NodeNames":["n-pl","n-se"]})";
  const std::string unlimited = R"({"Pod":{},"Nodes":null,"NodeNames":["n-pl","n-se"]})";
  auto failed = [](const net::HttpResponse& response) {
    return nlohmann::json::parse(response.body)["FailedAndUnresolvableNodes"];
  };
  // No model yet: every node fails, the reason names the limit and why.
  models_.Set(nullptr);
  net::HttpResponse filter = Post("/filter", limited);
  EXPECT_EQ(filter.status, 200);
  EXPECT_EQ(nlohmann::json::parse(filter.body)["NodeNames"], nlohmann::json::array());
  ASSERT_EQ(failed(filter).size(), 2u);
  EXPECT_EQ(failed(filter)["n-pl"],
            "carbonroute: latency limit delay_n-se=25ms cannot be verified: no placement model "
            "yet (no source could be read)");
  // A pod without a limit is unaffected.
  EXPECT_EQ(nlohmann::json::parse(Post("/filter", unlimited).body)["NodeNames"],
            nlohmann::json({"n-pl", "n-se"}));
  // A model older than the bound (10 min) is as good as none for a limit.
  auto facts = std::make_shared<PlacementFacts>();
  facts->built_at = kServiceNow - absl::Minutes(11);
  facts->nodes = {{"n-se", {"SE", "r1"}}, {"n-pl", {"PL", "r2"}}};
  facts->rtt["n-se"]["n-pl"] = {absl::Milliseconds(5), RttMethod::kMeasured, kServiceNow};
  models_.Set(std::make_shared<const PlacementModel>(*facts));
  filter = Post("/filter", limited);
  ASSERT_EQ(failed(filter).size(), 2u);
  EXPECT_THAT(failed(filter)["n-se"].get<std::string>(),
              HasSubstr("the placement model is 11m old (over 10m)"));
  // Fresh again: the limit is checked against it (n-pl is 5 ms from n-se).
  clock_.Advance(-absl::Minutes(2));
  filter = Post("/filter", limited);
  EXPECT_EQ(nlohmann::json::parse(filter.body)["NodeNames"], nlohmann::json({"n-pl", "n-se"}));
}

TEST_F(ExtenderServiceTest, MetricsHaveBuildInfoAndTheProcessMetrics) {
  const std::string page = Post("/metrics", "", "GET").body;
  EXPECT_THAT(page, HasSubstr("carbonroute_build_info{branch=\""));
  EXPECT_THAT(page, HasSubstr("version=\"" CARBONROUTE_VERSION "\"} 1"));
  EXPECT_THAT(page, HasSubstr("\nprocess_resident_memory_bytes "));
  EXPECT_THAT(page, HasSubstr("\nprocess_cpu_seconds_total "));
  EXPECT_THAT(page, HasSubstr("\nprocess_open_fds "));
}

TEST_F(ExtenderServiceTest, TheRootIsTheStatusPageOverTheModel) {
  net::HttpResponse root = Post("/", "", "GET");
  EXPECT_EQ(root.status, 200);
  EXPECT_EQ(root.headers["content-type"], "text/html; charset=utf-8");
  EXPECT_THAT(root.body, HasSubstr("fetch(\"api/v1/status\""));
  net::HttpResponse status = Post("/api/v1/status", "", "GET");
  ASSERT_EQ(status.status, 200);
  const nlohmann::json json = nlohmann::json::parse(status.body);
  EXPECT_EQ(json["title"], "scheduler-lite serve");
  EXPECT_EQ(json["links"][0]["path"], "/metrics");
  // The model's carbon by location, sorted; its RTT rows (none here).
  ASSERT_EQ(json["carbon"].size(), 2u);
  EXPECT_EQ(json["carbon"][0]["location"], "PL");
  EXPECT_EQ(json["carbon"][0]["grams_per_kwh"], 700);
  EXPECT_EQ(json["carbon"][1]["location"], "SE");
  EXPECT_TRUE(json["rtt"].empty());

  // With RTT rows: every row's entries, measured and declared.
  PlacementFacts facts;
  facts.built_at = kServiceNow;
  facts.nodes = {{"n-se", {"SE", "r1"}}, {"n-pl", {"PL", "r2"}}};
  facts.rtt["n-se"]["n-pl"] = {absl::Milliseconds(25), RttMethod::kMeasured, kServiceNow};
  facts.rtt["r1"]["r2"] = {absl::Milliseconds(30), RttMethod::kDeclared, kServiceNow};
  models_.Set(std::make_shared<const PlacementModel>(facts));
  const nlohmann::json rows = nlohmann::json::parse(Post("/api/v1/status", "", "GET").body)["rtt"];
  ASSERT_EQ(rows.size(), 2u) << rows;
  for (const nlohmann::json& row : rows) {
    if (row["source"] == "n-se") {
      EXPECT_EQ(row["target"], "n-pl");
      EXPECT_EQ(row["method"], "measured");
      EXPECT_EQ(row["rtt_ms"], 25);
    } else {
      EXPECT_EQ(row["source"], "r1");
      EXPECT_EQ(row["method"], "declared");
      EXPECT_EQ(row["rtt_ms"], 30);
    }
  }
}

TEST_F(ExtenderServiceTest, ModelAgeIsTrueAtTheScrapeWithoutRequests) {
  net::HttpResponse first = Post("/metrics", "", "GET");
  EXPECT_THAT(first.body, HasSubstr("carbonroute_scheduler_model_age_seconds 10\n"));
  clock_.Advance(absl::Minutes(10));  // no extender request meanwhile
  net::HttpResponse second = Post("/metrics", "", "GET");
  EXPECT_THAT(second.body, HasSubstr("carbonroute_scheduler_model_age_seconds 610\n"));
}

}  // namespace
}  // namespace carbonroute::extender
