// Integration test: the Carbon Aware SDK's Web API on a real collector (replay
// provider, offline), as an SDK client calls it over HTTP. Every answer is
// validated against the SDK's own OpenAPI document
// (test/carbon_aware/sdk-openapi/, ajv through node); the
// forecast's optimal window is compared with `scheduler-lite window`'s for the
// same data; no request reaches a provider (replay calls none, and the cache
// lookups counter moves only with the poll loop).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/utc_time.h"
#include "hold/forecast_source.h"
#include "net/curl_http_client.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/shell.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

class CarbonAwareApiBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    collector_ = testing::StartCollector(dir_.path(), absl::StrCat(R"yaml(
listen_address: 127.0.0.1:0
database: )yaml",
                                                                   dir_.path(), R"yaml(/cache.sqlite
node: {name: sdk-node, location: DE}
poll: {interval: 30s, forecast_horizon: 24h}
providers:
  - {type: replay, locations: [DE, FR, FI]}
)yaml"));
    ASSERT_GT(collector_.port, 0) << collector_.process->Log();
  }

  // GETs `path`, keeps the body in a file named `name`.json for the validator.
  Json Get(const std::string& path, int expected_status, const std::string& name) {
    int status = 0;
    const std::string body = testing::HttpGet(collector_.port, path, &status);
    EXPECT_EQ(status, expected_status) << path << ": " << body;
    const std::string file = absl::StrCat(dir_.path(), "/", name, ".json");
    std::ofstream(file) << body;
    files_[name] = file;
    return Json::parse(body, nullptr, /*allow_exceptions=*/false);
  }

  // Validates the answers kept under `names`, of GET `path` with `status`,
  // against the SDK's OpenAPI document (test/carbon_aware/sdk-openapi/).
  // The content types are the ones the unit tests assert.
  void ExpectValid(const std::string& path, int status, const std::vector<std::string>& names) {
    ASSERT_FALSE(modules_.empty()) << "npm tools could not be installed (scripts/lib/npm_tools.sh)";
    std::string command = absl::StrCat(
        "NODE_PATH=", modules_, " node ", CARBONROUTE_SOURCE_DIR,
        "/test/carbon_aware/sdk-openapi/validate_answers.cjs ", path, " ", status, " '",
        status == 200 ? "application/json" : "application/problem+json", "; charset=utf-8'");
    for (const std::string& name : names) absl::StrAppend(&command, " ", files_.at(name));
    const testing::ShellRun run = testing::Shell(command + " 2>&1");
    EXPECT_EQ(run.exit_code, 0) << path << ":\n" << run.output;
  }

  std::string modules_ = testing::NpmTools("sdk-api");
  testing::ScopedTempDir dir_;  // carbon_aware_api
  testing::CollectorProcess collector_;
  std::map<std::string, std::string> files_;
};

TEST_F(CarbonAwareApiBinaryTest, EveryAnswerMatchesTheSchemaOfTheSdksDto) {
  const absl::Time now = absl::Now();
  const absl::Time hour =
      absl::FromCivil(absl::ToCivilHour(now, absl::UTCTimeZone()), absl::UTCTimeZone());
  const Json reading = Get("/emissions/bylocation?location=DE", 200, "bylocation");
  ASSERT_EQ(reading.size(), 1u) << reading;
  EXPECT_EQ(reading[0]["location"], "DE");
  EXPECT_EQ(reading[0]["duration"], "01:00:00");  // replay: hourly readings
  const Json both =
      Get("/emissions/bylocations?location=DE&location=europe-north1", 200, "bylocations");
  ASSERT_EQ(both.size(), 2u) << both;
  EXPECT_EQ(both[1]["location"], "europe-north1");  // a cloud region in FI, named as asked
  const Json best =
      Get("/emissions/bylocations/best?location=DE&location=FR&location=FI", 200, "best");
  ASSERT_GE(best.size(), 1u);
  Get(absl::StrCat("/emissions/average-carbon-intensity?location=DE&startTime=", UtcSeconds(hour),
                   "&endTime=", UtcSeconds(hour + absl::Minutes(30))),
      200, "average");
  const Json forecasts =
      Get("/emissions/forecasts/current?location=DE&location=FR&windowSize=180", 200, "forecast");
  ASSERT_EQ(forecasts.size(), 2u);
  EXPECT_EQ(forecasts[0]["windowSize"], 180);
  EXPECT_FALSE(forecasts[0]["optimalDataPoints"].empty());
  const Json locations = Get("/locations", 200, "locations");
  EXPECT_TRUE(locations.contains("europe-west3")) << locations;
  EXPECT_TRUE(locations["europe-west3"]["latitude"].is_number());

  // The mistakes an SDK client makes: each a problem details body.
  Get("/emissions/bylocations", 400, "no_location");
  Get("/emissions/bylocation?location=DE&time=tomorrow", 400, "bad_time");
  Get("/emissions/bylocation?location=eastus", 400, "unknown_location");
  const Json window =
      Get("/emissions/forecasts/current?location=DE&windowSize=3h", 400, "bad_window");
  EXPECT_EQ(window["errors"]["windowSize"][0], "The value '3h' is not valid for windowSize.");
  Get("/emissions/average-carbon-intensity?location=DE", 400, "no_times");
  // %00 reaches the API (not cut short into "location is not set").
  const Json nul = Get("/emissions/bylocation?location=%00%ff", 400, "nul");
  EXPECT_THAT(nul.dump(), HasSubstr("is not a location name")) << nul;

  ExpectValid("/emissions/bylocation", 200, {"bylocation"});
  ExpectValid("/emissions/bylocations", 200, {"bylocations"});
  ExpectValid("/emissions/bylocations/best", 200, {"best"});
  ExpectValid("/emissions/average-carbon-intensity", 200, {"average"});
  ExpectValid("/emissions/forecasts/current", 200, {"forecast"});
  ExpectValid("/locations", 200, {"locations"});
  ExpectValid("/emissions/bylocations", 400, {"no_location"});
  ExpectValid("/emissions/bylocation", 400, {"bad_time", "unknown_location"});
  ExpectValid("/emissions/forecasts/current", 400, {"bad_window"});
  ExpectValid("/emissions/average-carbon-intensity", 400, {"no_times"});
}

// The hold controller's savings ledger reads the readings of a past interval through this API
// (hold/forecast_source.h): the SDK's mean, with the emissions type of the location's series.
TEST_F(CarbonAwareApiBinaryTest, TheHoldLedgerReadsObservedReadingsThroughIt) {
  absl::StatusOr<std::unique_ptr<net::CurlHttpClient>> http =
      net::CurlHttpClient::Create("carbon-aware-api-test");
  ASSERT_TRUE(http.ok()) << http.status();
  hold::CollectorForecasts readings(
      {"http://127.0.0.1:1", absl::StrCat("http://127.0.0.1:", collector_.port)}, {}, **http);
  const absl::Time hour =
      absl::FromCivil(absl::ToCivilHour(absl::Now(), absl::UTCTimeZone()), absl::UTCTimeZone());
  absl::StatusOr<hold::ObservedMean> mean = readings.Observed("DE", hour, hour + absl::Minutes(30));
  ASSERT_TRUE(mean.ok()) << mean.status();  // the dead first collector is passed over
  const Json average = Get(
      absl::StrCat("/emissions/average-carbon-intensity?location=DE&startTime=", UtcSeconds(hour),
                   "&endTime=", UtcSeconds(hour + absl::Minutes(30))),
      200, "average");
  EXPECT_DOUBLE_EQ(mean->grams_per_kwh, average["carbonIntensity"].get<double>());
  EXPECT_EQ(mean->emissions_type, EmissionsType::kAverage);
  // Hours the collector never polled: not found (the ledger asks again, then skips the run).
  absl::StatusOr<hold::ObservedMean> before =
      readings.Observed("DE", hour - absl::Hours(48), hour - absl::Hours(47));
  EXPECT_TRUE(absl::IsNotFound(before.status())) << before.status();
}

TEST_F(CarbonAwareApiBinaryTest, TheValidatorCatchesAnAnswerThatIsNotTheSdks) {
  // The tutorial's outdated shape: optimalDataPoint, a single object.
  std::ofstream(dir_.path() + "/tutorial.json")
      << R"([{"generatedAt":"2022-06-01T00:00:00+00:00","requestedAt":"2022-06-01T00:03:30+00:00",
             "location":"eastus","dataStartAt":"2022-06-01T12:00:00+00:00",
             "dataEndAt":"2022-06-01T18:00:00+00:00","windowSize":30,
             "optimalDataPoint":{"location":"eastus","timestamp":"2022-06-01T14:45:00+00:00",
                                 "duration":30,"value":359.23},"forecastData":[]}])";
  files_["tutorial"] = dir_.path() + "/tutorial.json";
  const testing::ShellRun run = testing::Shell(absl::StrCat(
      "NODE_PATH=", modules_, " node ", CARBONROUTE_SOURCE_DIR,
      "/test/carbon_aware/sdk-openapi/validate_answers.cjs /emissions/forecasts/current 200 "
      "application/json ",
      files_["tutorial"], " 2>&1"));
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("additional properties \"optimalDataPoint\""));
}

TEST_F(CarbonAwareApiBinaryTest, TheOptimalWindowIsScheduleLiteWindowsForTheSameForecast) {
  const absl::Time now = absl::Now();
  const absl::Time next_hour =
      absl::FromCivil(absl::ToCivilHour(now, absl::UTCTimeZone()), absl::UTCTimeZone()) +
      absl::Hours(1);
  const absl::Time deadline = next_hour + absl::Hours(12);
  // The SDK's windows start at dataStartAt and move by the points' hour; a
  // 3-hour job that must end by the deadline.
  const Json sdk =
      Get(absl::StrCat("/emissions/forecasts/current?location=DE&windowSize=180",
                       "&dataStartAt=", UtcSeconds(next_hour), "&dataEndAt=", UtcSeconds(deadline)),
          200, "window_forecast");
  ASSERT_EQ(sdk.size(), 1u) << sdk;
  ASSERT_FALSE(sdk[0]["optimalDataPoints"].empty()) << sdk;
  const Json& optimal = sdk[0]["optimalDataPoints"][0];

  const testing::ShellRun run = testing::Shell(absl::StrCat(
      CARBONROUTE_SCHEDULER_LITE_BINARY, " window --collector http://127.0.0.1:", collector_.port,
      " --location DE --duration 3h --deadline ", UtcSeconds(deadline), " --format json 2>&1"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const Json window = Json::parse(run.output);
  // `window` may also start now (between two hours); the SDK starts at the hours.
  const double sdk_mean = optimal["value"].get<double>();
  const double window_mean = window["mean_grams_per_kwh"].get<double>();
  EXPECT_LE(window_mean, sdk_mean + 1e-3);
  absl::Time sdk_start, window_start;
  std::string error;
  ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, optimal["timestamp"].get<std::string>(),
                              &sdk_start, &error))
      << error;
  ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, window["start"].get<std::string>(), &window_start,
                              &error))
      << error;
  if (window_start >= next_hour) {  // both chose among the same hours
    EXPECT_EQ(window_start, sdk_start) << sdk << "\n" << window;
    EXPECT_NEAR(window_mean, sdk_mean, 1e-3);
  }
  std::cout << "forecasts/current optimal: " << optimal.dump()
            << "\nscheduler-lite window: " << window.dump() << "\n";

  // `window` takes what `rank` and the SDK API take: a cloud region, any case.
  for (const char* location : {"europe-west3", "de", "Europe-North1"}) {
    const testing::ShellRun named = testing::Shell(absl::StrCat(
        CARBONROUTE_SCHEDULER_LITE_BINARY, " window --collector http://127.0.0.1:", collector_.port,
        " --location ", location, " --duration 3h --deadline ", UtcSeconds(deadline), " 2>&1"));
    EXPECT_EQ(named.exit_code, 0) << location << ": " << named.output;
  }
  const testing::ShellRun unknown = testing::Shell(absl::StrCat(
      CARBONROUTE_SCHEDULER_LITE_BINARY, " window --collector http://127.0.0.1:", collector_.port,
      " --location europe-west99 --duration 3h --deadline +12h 2>&1"));
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_THAT(unknown.output, HasSubstr("unknown location 'europe-west99'"));
}

}  // namespace
}  // namespace carbonroute
