#include "model_sources/metrics_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "absl/strings/str_cat.h"
#include "net/curl_http_client.h"
#include "net/http_server.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::model_sources {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

constexpr char kCollectorPage[] =
    "# TYPE carbonroute_carbon_intensity_grams_per_kilowatt_hour gauge\n"
    "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\",estimated="
    "\"false\","
    "location=\"FR\",provider=\"replay\"} 69.39\n";

// The shape of a real Prometheus instant-query answer.
constexpr char kPrometheusAnswer[] = R"({"status":"success","data":{"resultType":"vector","result":[
  {"metric":{"__name__":"carbonroute_carbon_intensity_grams_per_kilowatt_hour","emissions_type":"average",
             "estimated":"false","instance":"127.0.0.1:9464","job":"carbonroute","location":"DE","provider":"replay"},
   "value":[1795312800.123,"454.59"]},
  {"metric":{"__name__":"carbonroute_rtt_seconds","source":"a","target":"b"},"value":[1795312800.123,"NaN"]}]}})";

TEST(ParsePrometheusVector, ReadsNameLabelsAndValues) {
  std::vector<Sample> samples;
  ASSERT_THAT(ParsePrometheusVector(kPrometheusAnswer, samples), IsOk());
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].name, "carbonroute_carbon_intensity_grams_per_kilowatt_hour");
  EXPECT_EQ(samples[0].Label("location"), "DE");
  EXPECT_EQ(samples[0].Label("__name__"), "");  // the name is not a label
  EXPECT_EQ(samples[0].value, 454.59);
  EXPECT_TRUE(std::isnan(samples[1].value));
}

TEST(ParsePrometheusVector, ErrorsAreReported) {
  std::vector<Sample> samples;
  EXPECT_THAT(
      ParsePrometheusVector(
          R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})", samples),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               "Prometheus query failed: parse error at char 3"));
  EXPECT_THAT(ParsePrometheusVector("<html>", samples),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not valid JSON")));
  EXPECT_THAT(
      ParsePrometheusVector(
          R"({"status":"success","data":{"result":[{"metric":{},"value":[1,2]}]}})", samples),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("value is not [time, \"value\"]")));
}

TEST(ScrapeCollectors, GoodUrlsCountAndBadOnesAreReported) {
  net::HttpServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.routes["/metrics"] = [](const net::HttpServerRequest&) {
    return net::HttpServerResponse{200, "text/plain; version=0.0.4", kCollectorPage};
  };
  options.routes["/broken"] = [](const net::HttpServerRequest&) {
    return net::HttpServerResponse{200, "text/plain", "m{ 1\n"};
  };
  auto server = net::HttpServer::Start(std::move(options));
  ASSERT_THAT(server, IsOk());
  auto http = net::CurlHttpClient::Create("test");
  ASSERT_THAT(http, IsOk());
  const std::string base = absl::StrCat("http://127.0.0.1:", (*server)->port());

  SourceResult result = ScrapeCollectors(
      **http, {base + "/metrics", base + "/missing", base + "/broken"}, absl::Seconds(5));
  ASSERT_EQ(result.samples.size(), 1u);
  EXPECT_EQ(result.samples[0].Label("location"), "FR");
  ASSERT_EQ(result.errors.size(), 2u);
  EXPECT_THAT(result.errors[0],
              StatusIs(absl::StatusCode::kFailedPrecondition, base + "/missing answered HTTP 404"));
  EXPECT_THAT(result.errors[1], StatusIs(absl::StatusCode::kInvalidArgument,
                                         ::testing::StartsWith(base + "/broken: line 1:")));
}

TEST(QueryPrometheus, AServerThatCannotBeReachedIsOneErrorNotOnePerMetric) {
  int port = 0;
  {  // a port that was just free: nothing listens there any more
    net::HttpServerOptions options;
    options.listen_address = "127.0.0.1:0";
    auto server = net::HttpServer::Start(std::move(options));
    ASSERT_THAT(server, IsOk());
    port = (*server)->port();
  }
  auto http = net::CurlHttpClient::Create("test");
  ASSERT_THAT(http, IsOk());
  SourceResult result =
      QueryPrometheus(**http, absl::StrCat("http://127.0.0.1:", port), absl::Seconds(5));
  EXPECT_TRUE(result.samples.empty());
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].code(), absl::StatusCode::kUnavailable);
}

TEST(ScrapeCollectors, EverySampleNamesTheCollectorItCameFrom) {
  net::HttpServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.routes["/metrics"] = [](const net::HttpServerRequest&) {
    return net::HttpServerResponse{200, "text/plain; version=0.0.4", kCollectorPage};
  };
  auto server = net::HttpServer::Start(std::move(options));
  ASSERT_THAT(server, IsOk());
  auto http = net::CurlHttpClient::Create("test");
  ASSERT_THAT(http, IsOk());
  const std::string url = absl::StrCat("http://127.0.0.1:", (*server)->port(), "/metrics");
  SourceResult result = ScrapeCollectors(**http, {url}, absl::Seconds(5));
  ASSERT_EQ(result.samples.size(), 1u);
  EXPECT_EQ(result.samples[0].Label("instance"), url);
}

}  // namespace
}  // namespace carbonroute::model_sources
