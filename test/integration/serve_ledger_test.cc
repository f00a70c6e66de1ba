// Integration test: `scheduler-lite serve` books the Pods it scores in the
// savings ledger, as it runs beside kube-scheduler: a real collector (static
// provider: Belgium 150, Germany 380, France 56 gCO2eq/kWh), the Nodes and
// Pods of a fake Kubernetes API (its Pod watch learns the binding), /filter
// asked as kube-scheduler asks it (Node names only), then the Pod bound in
// France: the decision and, at the next refreshes, the grams on both bases
// on serve's /metrics, France's below the offered Nodes' mean. Then `serve --shadow` beside a
// scheduler it is not part of: neutral answers, no write to the API, and the binding booked
// against carbonroute's choice.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/utc_time.h"
#include "net/curl_http_client.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_kube_api_server.h"
#include "test/testing/fake_provider_server.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using Json = nlohmann::json;

std::string LedgerNode(const std::string& name, const std::string& region) {
  return Json{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", {{"name", name}, {"labels", {{"topology.kubernetes.io/region", region}}}}},
      {"status",
       {{"addresses", {{{"type", "InternalIP"}, {"address", "127.0.0.1"}}}},
        {"allocatable", {{"cpu", "8"}, {"memory", "32Gi"}}},
        {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}}
      .dump();
}

// The value of the first series on `page` whose line starts with `prefix` and has every label
// of `labels`; NaN when none.
double SeriesValue(const std::string& page, const std::string& prefix,
                   const std::vector<std::string>& labels) {
  for (absl::string_view line : absl::StrSplit(page, '\n')) {
    if (!absl::StartsWith(line, prefix)) continue;
    bool all = true;
    for (const std::string& label : labels) all = all && absl::StrContains(line, label);
    double value = 0;
    if (all && absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) return value;
  }
  return std::nan("");
}

// Three Nodes in Belgium, Germany and France on a fake API that also serves Pods, and a
// collector with their readings; Serve starts `serve` on them with `extra` flags.
class ServeLedger : public ::testing::Test {
 protected:
  void SetUp() override {
    api_.ServeBatchApi(&batch_);
    api_.SetNodes({LedgerNode("n-be", "europe-west1"), LedgerNode("n-de", "europe-west3"),
                   LedgerNode("n-fr", "europe-west9")},
                  "100");
    collector_ = testing::StartCollector(dir_.path(), R"yaml(
listen_address: 127.0.0.1:0
database: ":memory:"
node: {name: carbon-0}
providers: [{type: static, values: {BE: 150, DE: 380, FR: 56}}]
)yaml");
    ASSERT_GT(collector_.port, 0) << collector_.process->Log();
  }
  // `api_url`: the Kubernetes API serve is given (the fake one when empty).
  std::unique_ptr<testing::Subprocess> Serve(const std::vector<std::string>& extra,
                                             const std::string& api_url = "") {
    std::vector<std::string> argv = {
        CARBONROUTE_SCHEDULER_LITE_BINARY,
        "serve",
        "--web.listen-address",
        "127.0.0.1:0",
        "--refresh",
        "1s",
        "--kube-api-url",
        api_url.empty() ? api_.base_url() : api_url,
        absl::StrCat("--metrics=http://127.0.0.1:", collector_.port, "/metrics"),
        "--data-dir",
        absl::StrCat(CARBONROUTE_SOURCE_DIR, "/data")};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto serve = std::make_unique<testing::Subprocess>(argv, dir_.path() + "/serve.log");
    port_ = testing::LoggedPort(*serve, "serving the kube-scheduler extender on ");
    EXPECT_GT(port_, 0) << serve->Log();
    return serve;
  }

  testing::ScopedTempDir dir_;  // serve_ledger
  testing::FakeBatchApi batch_{[] { return absl::Now(); }};
  testing::FakeKubeApiServer api_;
  testing::CollectorProcess collector_;
  int port_ = 0;  // serve's, once Serve started it (it binds port 0 and logs it)
};

TEST_F(ServeLedger, APodItScoredIsBookedWhereItWasBoundAgainstTheOfferedNodes) {
  testing::FakeBatchApi& batch = batch_;
  std::unique_ptr<testing::Subprocess> serve_process = Serve({});
  testing::Subprocess& serve = *serve_process;
  const int port = port_;
  absl::StatusOr<std::unique_ptr<net::CurlHttpClient>> http =
      net::CurlHttpClient::Create("serve-ledger-test");
  ASSERT_TRUE(http.ok());
  const std::string uid = "uid-pod-shop-web-1";  // FakeBatchApi's uid for shop/web-1
  auto filter = [&] {
    net::HttpRequest request;
    request.method = "POST";
    request.url = absl::StrCat("http://127.0.0.1:", port, "/filter");
    request.headers = {{"Content-Type", "application/json"}};
    request.body = Json{{"Pod",
                         {{"metadata", {{"name", "web-1"}, {"namespace", "shop"}, {"uid", uid}}},
                          {"spec", {{"schedulerName", "carbonroute"}}}}},
                        {"Nodes", nullptr},
                        {"NodeNames", {"n-be", "n-de", "n-fr"}}}
                       .dump();
    absl::StatusOr<net::HttpResponse> response = (*http)->Send(request);
    return response.ok() ? response->status : 0;
  };
  auto metrics = [&] { return testing::HttpGet(port, "/metrics"); };
  // Once serve has the collector's readings and the three Nodes (its /healthz counts them: the
  // collector's node and the API's three), kube-scheduler asks: every Node passes.
  ASSERT_TRUE(testing::WaitFor(
      [&] { return absl::StrContains(testing::HttpGet(port, "/healthz"), "3 locations, 4 nodes"); },
      absl::Seconds(30)))
      << serve.Log();
  ASSERT_EQ(filter(), 200) << serve.Log();
  // kube-scheduler binds it in France: the watch sees spec.nodeName.
  batch.AddPod("shop", "web-1", absl::Now(), {}, {}, {{"app", "web"}});
  batch.Update("pods", "shop", "web-1",
               {{"spec",
                 {{"nodeName", "n-fr"},
                  {"schedulerName", "carbonroute"},
                  {"containers",
                   {{{"name", "work"},
                     {"image", "busybox"},
                     {"resources", {{"requests", {{"cpu", "2"}, {"memory", "4Gi"}}}}}}}}}}});
  const std::vector<std::string> extender = {"controller=\"extender\"", "namespace=\"shop\""};
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return SeriesValue(metrics(), "carbonroute_ledger_decisions_total{",
                           {"controller=\"extender\"", "outcome=\"moved\""}) == 1;
      },
      absl::Seconds(30)))
      << metrics() << serve.Log();
  double chosen = 0, counterfactual = 0;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        const std::string page = metrics();
        std::vector<std::string> labels = extender;
        labels.push_back("basis=\"chosen\"");
        chosen = SeriesValue(page, "carbonroute_ledger_emissions_grams_total{", labels);
        labels.back() = "basis=\"counterfactual\"";
        counterfactual = SeriesValue(page, "carbonroute_ledger_emissions_grams_total{", labels);
        return chosen > 0 && counterfactual > 0;
      },
      absl::Seconds(30)))
      << metrics() << serve.Log();
  // France (56) against the mean of the three offered, (150 + 380 + 56) / 3 = 195.3: the same
  // energy, so the grams stand in that ratio.
  EXPECT_NEAR(counterfactual / chosen, (150 + 380 + 56) / 3.0 / 56, 1e-6);
  EXPECT_THAT(serve.Log(), ::testing::HasSubstr("savings ledger: the Pods on"));
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
}

// serve --shadow whose API server cannot be reached (port 1 refuses): a trial that books
// nothing says so, in a warning, on /healthz (503 with the failure) and in
// carbonroute_scheduler_pod_watch_up 0, while /filter and /prioritize still answer.
TEST_F(ServeLedger, AShadowTrialThatCannotReachTheApiSaysItBooksNothing) {
  std::unique_ptr<testing::Subprocess> serve_process = Serve({"--shadow"}, "http://127.0.0.1:1");
  testing::Subprocess& serve = *serve_process;
  const int port = port_;
  std::string health;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        health = testing::HttpGet(port, "/healthz");
        return absl::StrContains(health, "shadow mode books nothing: the Pod watch fails");
      },
      absl::Seconds(30)))
      << health << serve.Log();
  EXPECT_THAT(health, ::testing::HasSubstr("127.0.0.1:1"));
  EXPECT_THAT(health, ::testing::HasSubstr("failing for"));
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return SeriesValue(testing::HttpGet(port, "/metrics"), "carbonroute_scheduler_pod_watch_up",
                           {}) == 0;
      },
      absl::Seconds(30)))
      << serve.Log();
  EXPECT_THAT(serve.Log(), ::testing::HasSubstr("savings ledger: the Pod watch fails (list: "));
  EXPECT_THAT(serve.Log(), ::testing::HasSubstr("nothing is booked until it lists the Pods"));
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
}

// serve --shadow, as a team tries it first: kube-scheduler's default profile binds a Pod in
// Germany; carbonroute would have chosen France (the cleanest Node it fits). The extender
// answers neutrally meanwhile, and serve writes nothing to the API. Kepler measures the Pod:
// a Prometheus (a fake here) answers the emissions rules' minutes for it, 60 J a window.
TEST_F(ServeLedger, ShadowModeBooksCarbonroutesChoiceAgainstAnotherSchedulersBinding) {
  testing::FakeBatchApi& batch = batch_;
  // A fourth Node that cannot be read (its allocatable CPU is not a quantity): left out, the
  // others still candidates.
  nlohmann::json bad = nlohmann::json::parse(LedgerNode("n-bad", "europe-west9"));
  bad["status"]["allocatable"]["cpu"] = "lots";
  api_.SetNodes({LedgerNode("n-be", "europe-west1"), LedgerNode("n-de", "europe-west3"),
                 LedgerNode("n-fr", "europe-west9"), bad.dump()},
                "101");
  testing::FakeProviderServer prometheus;
  prometheus.Route("/api/v1/query", [](const testing::FakeRequest& request) {
    const bool energy = absl::StrContains(request.target, "carbonroute_workload_energy_joules");
    return testing::FakeResponse{
        .body = absl::StrCat(
            R"({"status":"success","data":{"resultType":"vector","result":[)",
            energy
                ? R"({"metric":{"namespace":"shop","pod":"web-1","node":"n-de","meter":"kepler",)"
                  R"("component":"cpu"},"value":[1800000000,"60"]})"
                : "",
            "]}}")};
  });
  std::unique_ptr<testing::Subprocess> serve_process = Serve(
      {"--shadow", "--namespaces", "shop", absl::StrCat("--prometheus=", prometheus.base_url())});
  testing::Subprocess& serve = *serve_process;
  const int port = port_;
  ASSERT_TRUE(testing::WaitFor(
      [&] { return absl::StrContains(testing::HttpGet(port, "/healthz"), "3 locations, 5 nodes"); },
      absl::Seconds(30)))
      << serve.Log();
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return SeriesValue(testing::HttpGet(port, "/metrics"), "carbonroute_scheduler_pod_watch_up",
                           {}) == 1;
      },
      absl::Seconds(30)))
      << serve.Log();
  // Neutral: every Node passes, every score alike.
  absl::StatusOr<std::unique_ptr<net::CurlHttpClient>> http =
      net::CurlHttpClient::Create("serve-shadow-test");
  ASSERT_TRUE(http.ok());
  for (const char* verb : {"filter", "prioritize"}) {
    net::HttpRequest request;
    request.method = "POST";
    request.url = absl::StrCat("http://127.0.0.1:", port, "/", verb);
    request.headers = {{"Content-Type", "application/json"}};
    request.body = R"({"Pod":{"metadata":{"name":"x","labels":{"delay_n-de":"1"}}},
                       "NodeNames":["n-be","n-de","n-fr"]})";
    absl::StatusOr<net::HttpResponse> response = (*http)->Send(request);
    ASSERT_TRUE(response.ok());
    const Json reply = Json::parse(response->body);
    if (std::string(verb) == "filter") {
      EXPECT_EQ(reply["NodeNames"], Json::parse(R"(["n-be","n-de","n-fr"])")) << reply.dump();
    } else {
      EXPECT_EQ(reply, Json::parse(R"([{"Host":"n-be","Score":0},{"Host":"n-de","Score":0},
                                       {"Host":"n-fr","Score":0}])"));
    }
  }
  // The default scheduler binds a Pod in Germany, and one in a namespace not asked for.
  for (const char* ns : {"shop", "other"}) {
    batch.AddPod(ns, "web-1", absl::Now(), {}, {}, {{"app", "web"}});
    batch.Update("pods", ns, "web-1",
                 {{"spec",
                   {{"nodeName", "n-de"},
                    {"containers",
                     {{{"name", "work"},
                       {"image", "busybox"},
                       {"resources", {{"requests", {{"cpu", "2"}, {"memory", "4Gi"}}}}}}}}}},
                  {"status",
                   {{"phase", "Running"},
                    {"conditions",
                     {{{"type", "PodScheduled"},
                       {"status", "True"},
                       {"lastTransitionTime", UtcSeconds(absl::Now() + absl::Seconds(1))}}}}}}});
  }
  double chosen = 0, counterfactual = 0;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        const std::string page = testing::HttpGet(port, "/metrics");
        chosen = SeriesValue(page, "carbonroute_ledger_emissions_grams_total{",
                             {"basis=\"chosen\"", "mode=\"shadow\"", "namespace=\"shop\""});
        counterfactual =
            SeriesValue(page, "carbonroute_ledger_emissions_grams_total{",
                        {"basis=\"counterfactual\"", "mode=\"shadow\"", "namespace=\"shop\""});
        return chosen > 0 && counterfactual > 0;
      },
      absl::Seconds(30)))
      << testing::HttpGet(port, "/metrics") << serve.Log();
  // France (56) where it would have run against Germany (380) where it runs.
  EXPECT_NEAR(counterfactual / chosen, 380.0 / 56, 1e-6);
  const std::string page = testing::HttpGet(port, "/metrics");
  // Priced at Kepler's joules, a multiple of 60, never the model's.
  const double kepler = SeriesValue(page, "carbonroute_ledger_energy_joules_total{",
                                    {"energy_source=\"kepler\"", "namespace=\"shop\""});
  EXPECT_GE(kepler, 60) << page;
  EXPECT_DOUBLE_EQ(std::fmod(kepler, 60), 0);
  EXPECT_TRUE(std::isnan(
      SeriesValue(page, "carbonroute_ledger_energy_joules_total{", {"energy_source=\"model\""})))
      << page;
  EXPECT_EQ(SeriesValue(page, "carbonroute_ledger_decisions_total{",
                        {"mode=\"shadow\"", "outcome=\"moved\"", "namespace=\"shop\""}),
            1);
  EXPECT_TRUE(std::isnan(
      SeriesValue(page, "carbonroute_ledger_decisions_total{", {"namespace=\"other\""})));
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
  // Reads and watches only: no write of any kind.
  for (const testing::KubeApiRequest& request : api_.requests()) {
    EXPECT_EQ(request.method, "GET") << request.target;
  }
}

}  // namespace
}  // namespace carbonroute
