#include "scheduler-lite/metrics_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "exporter/http_server.h"
#include "providers/curl_http_client.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::scheduler_lite {
namespace {

using testing::IsOk;
using testing::StatusIs;

constexpr char kCollectorPage[] =
    "# TYPE carbonroute_carbon_intensity_grams_per_kilowatt_hour gauge\n"
    "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\",estimated=\"false\","
    "location=\"FR\",provider=\"replay\"} 69.39\n"
    "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"marginal\",estimated=\"true\","
    "location=\"CAISO_NORTH\",provider=\"watttime\"} 410.5\n"
    "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\",estimated=\"false\","
    "location=\"XX\",provider=\"replay\"} NaN\n"
    "carbonroute_carbon_intensity_valid_to_timestamp_seconds{emissions_type=\"average\",location=\"FR\","
    "provider=\"replay\"} 1795312800\n";

TEST(ExtractIntensities, ReadsValueLabelsAndValidTo) {
  absl::StatusOr<Exposition> exposition = ParseExposition(kCollectorPage);
  ASSERT_THAT(exposition, IsOk());
  std::vector<IntensityObservation> found = ExtractIntensities(*exposition, "src");
  ASSERT_EQ(found.size(), 2u);  // the NaN series is "no data"
  EXPECT_EQ(found[0].location, "FR");
  EXPECT_EQ(found[0].grams_per_kwh, 69.39);
  EXPECT_FALSE(found[0].estimated);
  EXPECT_EQ(found[0].valid_to, absl::FromUnixSeconds(1795312800));
  EXPECT_EQ(found[0].source, "src");
  EXPECT_EQ(found[1].emissions_type, "marginal");
  EXPECT_TRUE(found[1].estimated);
  EXPECT_EQ(found[1].valid_to, std::nullopt);
}

TEST(ScrapeCollectors, GoodUrlsCountAndBadOnesAreReported) {
  exporter::HttpServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.routes["/metrics"] = [](const exporter::HttpServerRequest&) {
    return exporter::HttpServerResponse{200, "text/plain; version=0.0.4", kCollectorPage};
  };
  options.routes["/broken"] = [](const exporter::HttpServerRequest&) {
    return exporter::HttpServerResponse{200, "text/plain", "m{ 1\n"};
  };
  auto server = exporter::HttpServer::Start(std::move(options));
  ASSERT_THAT(server, IsOk());
  auto http = CurlHttpClient::Create("test");
  ASSERT_THAT(http, IsOk());
  const std::string base = absl::StrCat("http://127.0.0.1:", (*server)->port());

  ScrapeResult result = ScrapeCollectors(
      **http, {base + "/metrics", base + "/missing", base + "/broken"}, absl::Seconds(5));
  EXPECT_EQ(result.intensities.size(), 2u);
  ASSERT_EQ(result.errors.size(), 2u);
  EXPECT_THAT(result.errors[0], StatusIs(absl::StatusCode::kFailedPrecondition,
                                         base + "/missing answered HTTP 404"));
  EXPECT_THAT(result.errors[1], StatusIs(absl::StatusCode::kInvalidArgument,
                                         ::testing::StartsWith(base + "/broken: line 1:")));
}

}  // namespace
}  // namespace carbonroute::scheduler_lite
