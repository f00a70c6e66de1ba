// The Carbon Aware SDK's Web API over a small cache, every answer computed by
// hand: field names, units, time formats, defaults and the error bodies.
#include "carbon_aware/carbon_aware_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "test/testing/fake_clock.h"

namespace carbonroute::carbon_aware {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Json = nlohmann::json;

const absl::Time kApiHour = absl::FromUnixSeconds(1661263200);  // 2022-08-23T14:00:00Z

std::vector<ForecastPoint> Hourly(absl::Time from, std::vector<double> values) {
  std::vector<ForecastPoint> points;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const absl::Time start = from + absl::Hours(static_cast<int64_t>(i));
    points.push_back({start, start + absl::Hours(1), values[i]});
  }
  return points;
}

class FakeData final : public CarbonAwareData {
 public:
  std::vector<std::string> GridLocations() const override { return {"DE", "FR"}; }
  absl::StatusOr<std::vector<ForecastPoint>> Observed(const std::string& location, absl::Time from,
                                                      absl::Time to) const override {
    std::vector<ForecastPoint> overlapping;
    auto found = observed.find(location);
    if (found == observed.end()) return overlapping;
    for (const ForecastPoint& point : found->second) {
      if (point.valid_to > from && point.valid_from < to) overlapping.push_back(point);
    }
    return overlapping;
  }
  absl::StatusOr<CachedForecast> Forecast(const std::string& location, absl::Time) const override {
    auto found = forecasts.find(location);
    if (found == forecasts.end()) return CachedForecast();
    return found->second;
  }

  std::map<std::string, std::vector<ForecastPoint>> observed;
  std::map<std::string, CachedForecast> forecasts;
};

class CarbonAwareApiTest : public ::testing::Test {
 protected:
  CarbonAwareApiTest()
      : clock_(kApiHour + absl::Hours(4) + absl::Minutes(10)),
        api_(
            data_,
            LocationNames({{"europe-west3", "DE"}, {"us-east1", "US-CAR-SCEG"}, {"cn-north-1", ""}},
                          {{"europe-west3", "50.11,8.68"}}),
            clock_) {
    data_.observed["DE"] = Hourly(kApiHour, {300, 200, 100, 400});
    data_.forecasts["DE"] = {Hourly(kApiHour + absl::Hours(4), {400, 100, 50, 300, 200}),
                             kApiHour + absl::Hours(3) + absl::Minutes(30)};
  }

  // The answer's status, and its body parsed (null when empty).
  std::pair<int, Json> Get(const std::string& path, const std::string& query = "") {
    const ApiResponse answer = api_.Handle(path, query);
    if (answer.status == 200) {
      EXPECT_EQ(answer.content_type, "application/json; charset=utf-8");
    }
    if (answer.status >= 400) {
      EXPECT_EQ(answer.content_type, "application/problem+json; charset=utf-8");
    }
    return {answer.status, answer.body.empty() ? Json() : Json::parse(answer.body)};
  }

  FakeData data_;
  testing::FakeClock clock_;
  CarbonAwareApi api_;
};

TEST_F(CarbonAwareApiTest, EmissionsByLocationsAreTheReadingsInTheRangeAsTheSdkWritesThem) {
  auto [status, body] = Get("/emissions/bylocations",
                            "location=DE&location=europe-west3&time=2022-08-23T15:00:00Z"
                            "&toTime=2022-08-23T17:00:00%2B00:00");
  ASSERT_EQ(status, 200) << body;
  ASSERT_EQ(body.size(), 4u);  // two readings, once per name asked
  EXPECT_EQ(body[0], Json::parse(R"({"location":"DE","time":"2022-08-23T15:00:00+00:00",
                                    "rating":200.0,"duration":"01:00:00"})"));
  EXPECT_EQ(body[1]["time"], "2022-08-23T16:00:00+00:00");
  EXPECT_EQ(body[1]["rating"], 100.0);
  EXPECT_EQ(body[2]["location"], "europe-west3");  // named as asked

  // Case is ignored, as the SDK's location source ignores it; the answer names it as asked.
  auto [any_case_status, any_case] =
      Get("/emissions/bylocations", "location=de&location=Europe-West3&time=2022-08-23T15:00:00Z");
  ASSERT_EQ(any_case_status, 200) << any_case;
  ASSERT_EQ(any_case.size(), 2u);
  EXPECT_EQ(any_case[0]["location"], "de");
  EXPECT_EQ(any_case[0]["rating"], 200.0);
  EXPECT_EQ(any_case[1]["location"], "Europe-West3");
}

TEST_F(CarbonAwareApiTest, WithoutATimeTheReadingValidNowAndBestIsTheLowest) {
  clock_.Advance(-absl::Hours(2));  // 16:10: the third hour's reading
  auto [status, body] = Get("/emissions/bylocation", "location=DE");
  ASSERT_EQ(status, 200) << body;
  ASSERT_EQ(body.size(), 1u);
  EXPECT_EQ(body[0]["rating"], 100.0);
  auto [best_status, best] =
      Get("/emissions/bylocations/best",
          "location=DE&time=2022-08-23T14:00:00Z&toTime=2022-08-23T18:00:00Z");
  ASSERT_EQ(best_status, 200) << best;
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0]["time"], "2022-08-23T16:00:00+00:00");
  EXPECT_EQ(best[0]["rating"], 100.0);
  // No reading in the range: 204, no body.
  EXPECT_EQ(Get("/emissions/bylocations", "location=FR").first, 204);
}

TEST_F(CarbonAwareApiTest, ParameterMistakesAreTheSdksProblemDetails) {
  auto [missing_status, missing] = Get("/emissions/bylocations", "time=2022-08-23T14:00:00Z");
  EXPECT_EQ(missing_status, 400);
  EXPECT_EQ(missing["title"], "ArgumentException");
  EXPECT_EQ(missing["status"], 400);
  EXPECT_EQ(missing["detail"], "Invalid parameters");
  EXPECT_EQ(missing["errors"]["location"], Json::parse(R"(["location is not set"])"));
  EXPECT_THAT(missing["traceId"].get<std::string>(),
              ::testing::MatchesRegex("00-[0-9a-f]{32}-[0-9a-f]{16}-00"));

  auto [typo_status, typo] = Get("/emissions/bylocations", "location=DE&time=yesterday");
  EXPECT_EQ(typo_status, 400);
  EXPECT_EQ(typo["title"], "One or more validation errors occurred.");
  EXPECT_EQ(typo["type"], "https://tools.ietf.org/html/rfc9110#section-15.5.1");
  EXPECT_EQ(typo["errors"]["time"],
            Json::parse(R"(["The value 'yesterday' is not valid for time."])"));

  auto [order_status, order] =
      Get("/emissions/bylocations", "location=DE&toTime=2022-08-23T14:00:00Z");
  EXPECT_EQ(order_status, 400);
  EXPECT_EQ(order["errors"]["time"],
            Json::parse(R"(["time must be defined if toTime is defined"])"));
  auto [back_status, back] =
      Get("/emissions/bylocations",
          "location=DE&time=2022-08-23T15:00:00Z&toTime=2022-08-23T14:00:00Z");
  EXPECT_EQ(back_status, 400);
  EXPECT_EQ(back["errors"]["time"], Json::parse(R"(["time must be before toTime"])"));

  auto [unknown_status, unknown] = Get("/emissions/bylocations", "location=eastus");
  EXPECT_EQ(unknown_status, 400);
  EXPECT_THAT(unknown["errors"]["location"][0].get<std::string>(),
              HasSubstr("unknown location 'eastus'"));
  auto [unpolled_status, unpolled] = Get("/emissions/bylocation", "location=us-east1");
  EXPECT_EQ(unpolled_status, 400);
  EXPECT_THAT(unpolled["errors"]["location"][0].get<std::string>(),
              HasSubstr("US-CAR-SCEG, which no provider polls here"));
}

TEST_F(CarbonAwareApiTest, CurrentForecastIsTheRollingAverageAndItsLowestWindow) {
  auto [status, body] = Get("/emissions/forecasts/current", "location=DE&windowSize=120");
  ASSERT_EQ(status, 200) << body;
  ASSERT_EQ(body.size(), 1u);
  const Json& forecast = body[0];
  EXPECT_EQ(forecast["generatedAt"], "2022-08-23T17:30:00+00:00");
  EXPECT_EQ(forecast["requestedAt"], "2022-08-23T18:10:00+00:00");
  EXPECT_EQ(forecast["location"], "DE");
  // Two-hour means of 400, 100, 50, 300, 200 by the hour: 250, 75, 175, 250.
  ASSERT_EQ(forecast["forecastData"].size(), 4u);
  std::vector<double> values;
  for (const Json& point : forecast["forecastData"]) values.push_back(point["value"]);
  EXPECT_THAT(values, ElementsAre(250, 75, 175, 250));
  EXPECT_EQ(forecast["forecastData"][0],
            Json::parse(R"({"location":"DE","timestamp":"2022-08-23T18:00:00+00:00",
                            "duration":120,"value":250.0})"));
  EXPECT_EQ(forecast["optimalDataPoints"],
            Json::parse(R"([{"location":"DE","timestamp":"2022-08-23T19:00:00+00:00",
                             "duration":120,"value":75.0}])"));
  EXPECT_EQ(forecast["dataStartAt"], "2022-08-23T18:00:00+00:00");  // the first window's start
  EXPECT_EQ(forecast["dataEndAt"], "2022-08-23T21:00:00+00:00");    // the last window's start
  EXPECT_EQ(forecast["windowSize"], 120);

  // Bounds: only windows inside them.
  auto [bounded_status, bounded] = Get(
      "/emissions/forecasts/current",
      "location=DE&dataStartAt=2022-08-23T20:00:00Z&dataEndAt=2022-08-23T23:00:00Z&windowSize=60");
  ASSERT_EQ(bounded_status, 200) << bounded;
  EXPECT_EQ(bounded[0]["dataStartAt"], "2022-08-23T20:00:00+00:00");
  EXPECT_EQ(bounded[0]["optimalDataPoints"][0]["value"], 50.0);
}

TEST_F(CarbonAwareApiTest, ForecastMistakesAndAMissingForecast) {
  auto [outside_status, outside] =
      Get("/emissions/forecasts/current", "location=DE&dataStartAt=2022-08-24T14:00:00Z");
  EXPECT_EQ(outside_status, 400);
  EXPECT_EQ(outside["detail"], "Invalid EmissionsForecast");
  EXPECT_THAT(outside["errors"]["dataStartAt"].dump(),
              HasSubstr("dataStartAt must be within time range of the forecasted data, "
                        "'2022-08-23T18:00:00+00:00' through '2022-08-23T23:00:00+00:00'"));
  auto [size_status, size] = Get("/emissions/forecasts/current", "location=DE&windowSize=two");
  EXPECT_EQ(size_status, 400);
  EXPECT_EQ(size["errors"]["windowSize"],
            Json::parse(R"(["The value 'two' is not valid for windowSize."])"));
  auto [negative_status, negative] =
      Get("/emissions/forecasts/current", "location=DE&windowSize=-30");
  EXPECT_EQ(negative_status, 400);
  EXPECT_EQ(negative["errors"]["windowSize"],
            Json::parse(R"(["windowSize must be 0 or more minutes, not -30"])"));
  auto [none_status, none] = Get("/emissions/forecasts/current", "location=FR");
  EXPECT_EQ(none_status, 503);
  EXPECT_THAT(none["detail"].get<std::string>(), HasSubstr("no forecast of FR is cached yet"));
}

TEST_F(CarbonAwareApiTest, AverageCarbonIntensityIsTimeWeighted) {
  auto [status, body] = Get("/emissions/average-carbon-intensity",
                            "location=europe-west3&startTime=2022-08-23T14:30:00Z"
                            "&endTime=2022-08-23T16:30:00Z");
  ASSERT_EQ(status, 200) << body;
  // Half an hour at 300, an hour at 200, half an hour at 100, over two hours.
  EXPECT_EQ(body, Json::parse(R"({"location":"europe-west3",
                                  "startTime":"2022-08-23T14:30:00+00:00",
                                  "endTime":"2022-08-23T16:30:00+00:00",
                                  "carbonIntensity":200.0})"));
  auto [missing_status, missing] = Get("/emissions/average-carbon-intensity", "");
  EXPECT_EQ(missing_status, 400);
  EXPECT_EQ(missing["errors"].size(), 3u);
  EXPECT_EQ(missing["errors"]["startTime"], Json::parse(R"(["startTime is not set"])"));
  auto [uncovered_status, uncovered] =
      Get("/emissions/average-carbon-intensity",
          "location=DE&startTime=2022-08-23T17:00:00Z&endTime=2022-08-23T20:00:00Z");
  EXPECT_EQ(uncovered_status, 400);
  EXPECT_THAT(uncovered["detail"].get<std::string>(), HasSubstr("Period out of range"));
}

// ASP.NET Core matches routes and binds query parameters ignoring case: the
// SDK's own integration collection asks for /emissions/byLocation.
TEST_F(CarbonAwareApiTest, PathsAndParameterNamesMatchInAnyCaseAsTheSdksServerDoes) {
  clock_.Advance(-absl::Hours(2));
  for (const char* path :
       {"/emissions/byLocation", "/EMISSIONS/BYLOCATION", "/Emissions/ByLocations"}) {
    auto [status, body] =
        Get(path, "Location=DE&TIME=2022-08-23T16:00:00Z&totime=2022-08-23T17:00:00Z");
    ASSERT_EQ(status, 200) << path << ": " << body;
    ASSERT_EQ(body.size(), 1u) << path;
    EXPECT_EQ(body[0]["rating"], 100.0) << path;
  }
  EXPECT_EQ(Get("/Locations").first, 200);
  EXPECT_EQ(Get("/emissions/forecasts/Current", "LOCATION=DE&WindowSize=60").first, 200);
  EXPECT_EQ(Get("/emissions/bylocationz", "location=DE").first, 404);
}

// A value with arithmetic noise in its last bits is written as its 15-digit decimal.
TEST_F(CarbonAwareApiTest, RatingsCarryNoArithmeticNoise) {
  data_.observed["FR"] = {{kApiHour, kApiHour + absl::Hours(1), 558.5999999999999}};
  const ApiResponse answer =
      api_.Handle("/emissions/bylocation", "location=FR&time=2022-08-23T14:00:00Z");
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_THAT(answer.body, ::testing::HasSubstr("\"rating\":558.6,"));
}

// Bytes that cannot be a name are said to be so, escaped; never "not set", never a throw.
TEST_F(CarbonAwareApiTest, ANameThatIsNotUtf8OrHoldsAControlCharacterIsSaidToBeSo) {
  for (const char* query : {"location=%00%FF", "location=A%FF", "location=D%0AE"}) {
    auto [status, body] = Get("/emissions/bylocation", query);
    ASSERT_EQ(status, 400) << query;
    EXPECT_THAT(body["errors"]["location"][0].get<std::string>(),
                ::testing::HasSubstr("is not a location name"))
        << query;
  }
}

TEST_F(CarbonAwareApiTest, ARegionWhoseZoneIsUnknownSaysSo) {
  auto [status, body] = Get("/emissions/bylocation", "location=CN-North-1");
  ASSERT_EQ(status, 400) << body;
  EXPECT_THAT(body["errors"]["location"][0].get<std::string>(),
              ::testing::HasSubstr("'CN-North-1' is a cloud region whose grid zone is unknown"));
}

TEST_F(CarbonAwareApiTest, LocationsListsGridLocationsAndTheRegionsOfPolledOnes) {
  auto [status, body] = Get("/locations");
  ASSERT_EQ(status, 200) << body;
  EXPECT_EQ(body, Json::parse(R"({
    "DE": {"latitude": null, "longitude": null, "name": "DE"},
    "FR": {"latitude": null, "longitude": null, "name": "FR"},
    "europe-west3": {"latitude": 50.11, "longitude": 8.68, "name": "europe-west3"}})"));
}

}  // namespace
}  // namespace carbonroute::carbon_aware
