// WattTime, Electricity Maps and UK Carbon Intensity against a fake server on
// 127.0.0.1 replaying the documented bodies and the failure cases.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "net/curl_http_client.h"
#include "providers/electricity_maps_provider.h"
#include "providers/http_status.h"
#include "providers/uk_carbon_intensity_provider.h"
#include "providers/watttime_provider.h"
#include "test/testing/fake_provider_server.h"
#include "test/testing/status_matchers.h"
#include "test/testing/testdata.h"

namespace carbonroute::providers {
namespace {

using testing::FakeProviderServer;
using testing::FakeRequest;
using testing::FakeResponse;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::ProviderTestdata;
using testing::StatusIs;

// 2022-07-15T00:02:00Z: inside the first 5-minute point of the recorded forecast.
const absl::Time kNow = absl::FromUnixSeconds(1657843200 + 120);

FakeResponse Json(std::string body, int status = 200) { return {status, std::move(body), {}}; }

class WattTimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    http_ = *net::CurlHttpClient::Create("carbonroute-test");
    config_.name = "wt";
    config_.type = ProviderType::kWattTime;
    config_.locations = {"CAISO_NORTH"};
    config_.http.base_url = server_.base_url();
    config_.http.timeout = absl::Milliseconds(500);
    config_.watttime.username = {SecretRef::Source::kLiteral, "user"};
    config_.watttime.password = {SecretRef::Source::kLiteral, "pass"};
    server_.Route("/login", [](const FakeRequest& request) {
      // Basic base64("user:pass")
      if (request.headers.count("authorization") == 0 ||
          request.headers.at("authorization") != "Basic dXNlcjpwYXNz") {
        return FakeResponse{401, "{}", {}};
      }
      return Json(R"({"token": "tok-1"})");
    });
  }
  std::unique_ptr<WattTimeProvider> Make() { return *WattTimeProvider::Create(config_, *http_); }

  FakeProviderServer server_;
  std::unique_ptr<net::CurlHttpClient> http_;
  ProviderConfig config_;
};

TEST_F(WattTimeTest, LogsInAndReadsTheCurrentMoer) {
  server_.Script("/v3/forecast", {Json(ProviderTestdata("watttime_forecast.json"))});
  auto provider = Make();
  absl::StatusOr<Reading> reading = provider->Current("CAISO_NORTH", kNow);
  ASSERT_THAT(reading, IsOk());
  EXPECT_DOUBLE_EQ(reading->value, 1048.4131919701972 * 0.453592);
  EXPECT_TRUE(reading->Covers(kNow));
  EXPECT_EQ(server_.Count("/login"), 1);
  const FakeRequest request = server_.requests().back();
  EXPECT_EQ(request.target, "/v3/forecast?region=CAISO_NORTH&signal_type=co2_moer&horizon_hours=0");
  EXPECT_EQ(request.headers.at("authorization"), "Bearer tok-1");
  EXPECT_THAT(request.headers.at("user-agent"), HasSubstr("carbonroute"));
  // The token is reused for 25 minutes, then renewed.
  ASSERT_THAT(provider->Current("CAISO_NORTH", kNow + absl::Minutes(1)), IsOk());
  EXPECT_EQ(server_.Count("/login"), 1);
  ASSERT_THAT(provider->Forecast("CAISO_NORTH", kNow + absl::Minutes(26), absl::Hours(5)), IsOk());
  EXPECT_EQ(server_.Count("/login"), 2);
  EXPECT_THAT(server_.requests().back().target, HasSubstr("horizon_hours=5"));
}

TEST_F(WattTimeTest, TheCurrentReadingOfAPollComesFromItsForecastWithoutASecondCall) {
  server_.Script("/v3/forecast", {Json(ProviderTestdata("watttime_forecast.json")),
                                  Json(ProviderTestdata("watttime_forecast.json"))});
  auto provider = Make();
  ASSERT_THAT(provider->Forecast("CAISO_NORTH", kNow, absl::Hours(25)), IsOk());
  absl::StatusOr<Reading> reading = provider->Current("CAISO_NORTH", kNow);
  ASSERT_THAT(reading, IsOk());
  EXPECT_DOUBLE_EQ(reading->value, 1048.4131919701972 * 0.453592);
  EXPECT_EQ(server_.Count("/v3/forecast"), 1);
  // A later poll asks again.
  ASSERT_THAT(provider->Current("CAISO_NORTH", kNow + absl::Minutes(1)), IsOk());
  EXPECT_EQ(server_.Count("/v3/forecast"), 2);
}

TEST_F(WattTimeTest, TheCallAnswered401BeforeTheReloginIsReported) {
  server_.Script("/v3/forecast",
                 {Json("{}", 401), Json(ProviderTestdata("watttime_forecast.json"))});
  auto provider = Make();
  std::vector<absl::StatusCode> hidden;
  provider->SetHiddenCallObserver(
      [&](const absl::Status& status) { hidden.push_back(status.code()); });
  ASSERT_THAT(provider->Current("CAISO_NORTH", kNow), IsOk());
  EXPECT_EQ(server_.Count("/v3/forecast"), 2);
  EXPECT_THAT(hidden, ::testing::ElementsAre(absl::StatusCode::kUnauthenticated));
}

TEST_F(WattTimeTest, ExpiredTokenIsRenewedOnceOn401) {
  server_.Script("/v3/forecast",
                 {Json("{}", 401), Json(ProviderTestdata("watttime_forecast.json"))});
  EXPECT_THAT(Make()->Current("CAISO_NORTH", kNow), IsOk());
  EXPECT_EQ(server_.Count("/login"), 2);
  EXPECT_EQ(server_.Count("/v3/forecast"), 2);
}

TEST_F(WattTimeTest, Persistent403IsPermissionDeniedWithTheHtmlExcerpt) {
  server_.Script("/v3/forecast", {{403, ProviderTestdata("watttime_403.html"), {}}});
  EXPECT_THAT(
      Make()->Current("CAISO_NORTH", kNow),
      StatusIs(absl::StatusCode::kPermissionDenied,
               HasSubstr(
                   "watttime CAISO_NORTH forecast: HTTP 403: <html> <head> <title>403 Forbidden")));
  EXPECT_EQ(server_.Count("/v3/forecast"), 2);  // retried once after a fresh login, then reported
}

TEST_F(WattTimeTest, BadCredentialsAreUnauthenticated) {
  config_.watttime.password = {SecretRef::Source::kLiteral, "wrong"};
  EXPECT_THAT(Make()->Current("CAISO_NORTH", kNow),
              StatusIs(absl::StatusCode::kUnauthenticated,
                       HasSubstr("watttime login (provider \"wt\"): HTTP 401")));
}

TEST_F(WattTimeTest, RateLimitCarriesRetryAfter) {
  server_.Script("/v3/forecast", {{429, "{}", {{"Retry-After", "120"}}}});
  absl::StatusOr<Reading> reading = Make()->Current("CAISO_NORTH", kNow);
  EXPECT_THAT(reading, StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("HTTP 429")));
  EXPECT_EQ(RetryAfter(reading.status()), absl::Seconds(120));
}

TEST_F(WattTimeTest, FailureCasesMapToRetryableCodes) {
  struct Case {
    FakeResponse response;
    absl::StatusCode code;
    const char* message;
  } cases[] = {
      {Json(R"({"error":"boom"})", 500), absl::StatusCode::kUnavailable, "HTTP 500"},
      {{502, "<html><body>Bad Gateway</body></html>", {}},
       absl::StatusCode::kUnavailable,
       "Bad Gateway"},
      {{200, "<html><body>Maintenance</body></html>", {}},
       absl::StatusCode::kInvalidArgument,
       "not valid JSON"},
      {Json(R"({"data": [{"point_time": "2022-07-15T00:00:00+00:00", "value": )"),
       absl::StatusCode::kInvalidArgument, "not valid JSON"},
      {{200, ProviderTestdata("watttime_forecast.json"), {}, FakeResponse::Mode::kTruncated},
       absl::StatusCode::kUnavailable,
       "failed"},
      {{200, "", {}, FakeResponse::Mode::kHang}, absl::StatusCode::kDeadlineExceeded, "failed"},
      {Json(
           R"({"data": [], "meta": {"units": "lbs_co2_per_mwh", "data_point_period_seconds": 300}})"),
       absl::StatusCode::kUnavailable, "no data points"},
      {Json(
           R"({"data": [{"point_time": "2022-07-15T00:00:00+00:00", "value": 1}], "meta": {"units": "g", "data_point_period_seconds": 300}})"),
       absl::StatusCode::kInvalidArgument, "meta.units: \"g\""},
  };
  for (const Case& c : cases) {
    server_.Script("/v3/forecast", {c.response});
    EXPECT_THAT(Make()->Current("CAISO_NORTH", kNow), StatusIs(c.code, HasSubstr(c.message)))
        << c.response.body.substr(0, 60);
  }
}

TEST_F(WattTimeTest, LocationsPolledAtOnceShareOneLogin) {
  // The poller polls several locations of a provider at once (poll.concurrent_locations).
  server_.Route("/v3/forecast", [](const FakeRequest&) {
    return Json(ProviderTestdata("watttime_forecast.json"));
  });
  config_.http.timeout = absl::Seconds(30);  // four calls queue at a one-at-a-time server
  auto provider = Make();
  const std::vector<std::string> regions = {"CAISO_NORTH", "CAISO_SOUTH", "PJM_DC", "ERCOT_EASTTX"};
  std::vector<absl::Status> outcomes(regions.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    threads.emplace_back([&, i] { outcomes[i] = provider->Current(regions[i], kNow).status(); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const absl::Status& outcome : outcomes) EXPECT_THAT(outcome, IsOk());
  EXPECT_EQ(server_.Count("/login"), 1);
  EXPECT_EQ(server_.Count("/v3/forecast"), 4);
}

TEST_F(WattTimeTest, LatLonIsResolvedOnceThroughRegionFromLoc) {
  config_.locations = {"42.37,-72.52"};
  server_.Script("/v3/region-from-loc",
                 {Json(R"({"region": "ISONE_WCMA", "signal_type": "co2_moer"})")});
  server_.Script("/v3/forecast", {Json(ProviderTestdata("watttime_forecast.json"))});
  auto provider = Make();
  ASSERT_THAT(provider->Current("42.37,-72.52", kNow), IsOk());
  ASSERT_THAT(provider->Current("42.37,-72.52", kNow), IsOk());
  EXPECT_EQ(server_.Count("/v3/region-from-loc"), 1);
  EXPECT_THAT(server_.requests().back().target, HasSubstr("region=ISONE_WCMA"));
}

TEST_F(WattTimeTest, SignalIndexModeHasNoForecast) {
  config_.watttime.data = "signal_index";
  server_.Script("/v3/signal-index", {Json(ProviderTestdata("watttime_signal_index.json"))});
  auto provider = Make();
  EXPECT_FALSE(provider->supports_forecast());
  absl::StatusOr<Reading> reading =
      provider->Current("PSCO", absl::FromUnixSeconds(1718736000 + 60));  // 18:41Z
  ASSERT_THAT(reading, IsOk());
  EXPECT_EQ(reading->kind, ValueKind::kPercentile);
}

TEST_F(WattTimeTest, StartReportsAccessFromMyAccess) {
  server_.Script("/v3/my-access", {Json(ProviderTestdata("watttime_my_access.json"))});
  EXPECT_THAT(Make()->Start(kNow), IsOk());
  EXPECT_EQ(server_.Count("/v3/my-access"), 1);
}

class ElectricityMapsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    http_ = *net::CurlHttpClient::Create("carbonroute-test");
    config_.name = "em";
    config_.type = ProviderType::kElectricityMaps;
    config_.locations = {"US-CAR-DUK"};
    config_.http.base_url = server_.base_url() + "/v3";
    config_.electricity_maps.token = {SecretRef::Source::kLiteral, "em-token"};
  }
  FakeProviderServer server_;
  std::unique_ptr<net::CurlHttpClient> http_;
  ProviderConfig config_;
};

TEST_F(ElectricityMapsTest, SendsTheTokenInTheConfiguredHeader) {
  server_.Script("/v3/carbon-intensity/latest",
                 {Json(ProviderTestdata("electricity_maps_latest.json"))});
  config_.electricity_maps.auth_header = "X-BLOBR-KEY";
  auto provider = *ElectricityMapsProvider::Create(config_, *http_);
  absl::StatusOr<Reading> reading =
      provider->Current("US-CAR-DUK", absl::FromUnixSeconds(1709752000));
  ASSERT_THAT(reading, IsOk());
  EXPECT_EQ(reading->value, 216);
  const FakeRequest request = server_.requests().back();
  EXPECT_EQ(request.headers.at("x-blobr-key"), "em-token");
  EXPECT_EQ(request.target,
            "/v3/carbon-intensity/latest?zone=US-CAR-DUK&emissionFactorType=lifecycle&"
            "shouldUseFallbackCallerLookup=false");
}

// The 2026 request parameters: the version the base URL follows, finer data, no
// estimates, a data centre as a location. The fake answers v3's shapes on the v4
// path (v4's are not in the reference yet), so the path is what is checked; an
// answer without temporalGranularity is valid for the granularity asked for.
TEST_F(ElectricityMapsTest, AsksForTheConfiguredVersionGranularityAndDataCentre) {
  config_.http.base_url = server_.base_url() + "/v4";
  config_.electricity_maps.api_version = "v4";
  config_.electricity_maps.temporal_granularity = "15_minutes";
  config_.electricity_maps.disable_estimations = true;
  config_.locations = {"gcp:europe-west1"};
  server_.Script("/v4/carbon-intensity/latest",
                 {Json(ProviderTestdata("electricity_maps_latest.json"))});
  auto provider = *ElectricityMapsProvider::Create(config_, *http_);
  absl::StatusOr<Reading> reading =
      provider->Current("gcp:europe-west1", absl::FromUnixSeconds(1709752000));
  ASSERT_THAT(reading, IsOk());
  EXPECT_EQ(reading->value, 216);
  EXPECT_EQ(reading->valid_to - reading->valid_from, absl::Minutes(15));
  EXPECT_EQ(server_.requests().back().target,
            "/v4/carbon-intensity/latest?dataCenterProvider=gcp&dataCenterRegion=europe-west1&"
            "emissionFactorType=lifecycle&temporalGranularity=15_minutes&disableEstimations=true&"
            "shouldUseFallbackCallerLookup=false");
  // The answer's own granularity wins over the request's.
  std::string five = ProviderTestdata("electricity_maps_latest.json");
  five.insert(five.find('{') + 1, "\"temporalGranularity\": \"5_minutes\", ");
  server_.Script("/v4/carbon-intensity/latest", {Json(five)});
  reading = provider->Current("gcp:europe-west1", absl::FromUnixSeconds(1709752000));
  ASSERT_THAT(reading, IsOk());
  EXPECT_EQ(reading->valid_to - reading->valid_from, absl::Minutes(5));
}

TEST_F(ElectricityMapsTest, PlanLimitsAreAConfigurationError) {
  server_.Script("/v3/carbon-intensity/forecast",
                 {Json(R"({"error":"Endpoint not available for this token"})", 401)});
  server_.Script("/v3/carbon-intensity/latest",
                 {Json(R"({"error":"Token unauthorized for zoneKey FR"})", 401)});
  auto provider = *ElectricityMapsProvider::Create(config_, *http_);
  EXPECT_THAT(provider->Forecast("DE", absl::UnixEpoch(), absl::Hours(24)),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not in this token's Electricity Maps plan")));
  EXPECT_THAT(
      provider->Current("FR", absl::UnixEpoch()),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("free accounts cover one zone")));
}

TEST_F(ElectricityMapsTest, InvalidTokenIsUnauthenticated) {
  server_.Script("/v3/carbon-intensity/latest", {Json(R"({"error":"Invalid auth-token"})", 401)});
  EXPECT_THAT((*ElectricityMapsProvider::Create(config_, *http_))->Current("DE", absl::UnixEpoch()),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("Invalid auth-token")));
}

TEST(UkCarbonIntensityProvider, NationalAndRegionalPaths) {
  FakeProviderServer server;
  server.Script("/intensity", {Json(ProviderTestdata("uk_national.json"))});
  server.Script("/regional/regionid/3", {Json(ProviderTestdata("uk_regionid.json"))});
  auto http = *net::CurlHttpClient::Create("carbonroute-test");
  ProviderConfig config;
  config.name = "uk";
  config.locations = {"national", "region/3"};
  config.http.base_url = server.base_url();
  auto provider = *UkCarbonIntensityProvider::Create(config, *http);
  const absl::Time at = absl::FromUnixSeconds(1516450500);  // 2018-01-20T12:15Z
  EXPECT_EQ(provider->Current("national", at)->value, 263);
  EXPECT_EQ(provider->Current("region/3", at)->value, 266);
  ASSERT_THAT(provider->Forecast("region/3", at, absl::Hours(48)), ::testing::_);
  EXPECT_EQ(server.requests().back().target,
            "/regional/intensity/2018-01-20T12:15Z/fw48h/regionid/3");

  config.locations = {"region/18"};
  EXPECT_THAT(
      UkCarbonIntensityProvider::Create(config, *http),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"region/18\" is not national")));
}

}  // namespace
}  // namespace carbonroute::providers
