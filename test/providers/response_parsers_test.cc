// The provider response parsers on real response bodies in the shapes the
// providers document, recorded in test/providers/testdata/.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "providers/electricity_maps_parser.h"
#include "providers/uk_carbon_intensity_parser.h"
#include "providers/watttime_parser.h"
#include "test/testing/status_matchers.h"
#include "test/testing/testdata.h"

namespace carbonroute::providers {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using testing::ProviderTestdata;
using testing::StatusIs;

absl::Time Rfc3339(const char* text) {
  absl::Time t;
  std::string error;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, text, &t, &error)) << error;
  return t;
}

TEST(WattTimeParser, ForecastConvertsLbsPerMwhAndUsesThePeriod) {
  absl::StatusOr<WattTimeSignal> signal =
      ParseWattTimeSignal(ProviderTestdata("watttime_forecast.json"), "CAISO_NORTH");
  ASSERT_THAT(signal, IsOk());
  EXPECT_EQ(signal->units, "lbs_co2_per_mwh");
  EXPECT_EQ(signal->generated_at, Rfc3339("2022-07-15T00:00:00Z"));
  ASSERT_EQ(signal->points.size(), 2u);
  const Reading& first = signal->points[0];
  EXPECT_DOUBLE_EQ(first.value, 1048.4131919701972 * 0.453592);  // ≈ 475.55 gCO2eq/kWh
  EXPECT_EQ(first.kind, ValueKind::kGramsPerKwh);
  EXPECT_EQ(first.valid_from, Rfc3339("2022-07-15T00:00:00Z"));
  EXPECT_EQ(first.valid_to, Rfc3339("2022-07-15T00:05:00Z"));
  EXPECT_EQ(first.source_units, "lbs_co2_per_mwh");
  EXPECT_EQ(signal->points[1].valid_from, first.valid_to);
}

TEST(WattTimeParser, SignalIndexIsAPercentile) {
  absl::StatusOr<WattTimeSignal> signal =
      ParseWattTimeSignal(ProviderTestdata("watttime_signal_index.json"), "PSCO");
  ASSERT_THAT(signal, IsOk());
  ASSERT_EQ(signal->points.size(), 1u);
  EXPECT_EQ(signal->points[0].kind, ValueKind::kPercentile);
  EXPECT_EQ(signal->points[0].value, 96.0);
  EXPECT_EQ(signal->generated_at, std::nullopt);
}

TEST(WattTimeParser, UnitsAreReadNotAssumed) {
  std::string body = ProviderTestdata("watttime_forecast.json");
  body.replace(body.find("lbs_co2_per_mwh"), 15, "kg_co2_per_mwh");
  EXPECT_THAT(
      ParseWattTimeSignal(body, "CAISO_NORTH"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("meta.units: \"kg_co2_per_mwh\" is not a unit carbonroute converts")));
}

TEST(WattTimeParser, EmptyDataMalformedAndHtmlBodies) {
  EXPECT_THAT(
      ParseWattTimeSignal(
          R"({"data": [], "meta": {"units": "lbs_co2_per_mwh", "data_point_period_seconds": 300}})",
          "X"),
      StatusIs(absl::StatusCode::kUnavailable, "watttime X: the response has no data points"));
  EXPECT_THAT(ParseWattTimeSignal(R"({"data": [{"point_time": )", "X"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("watttime X: response is not valid JSON")));
  EXPECT_THAT(
      ParseWattTimeSignal(ProviderTestdata("watttime_403.html"), "X"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("response is not valid JSON")));
  EXPECT_THAT(ParseWattTimeSignal(R"({"data": [], "meta": {"units": "percentile"}})", "X"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "watttime X meta: data_point_period_seconds: missing"));
}

TEST(WattTimeParser, LoginRegionAndAccess) {
  EXPECT_EQ(*ParseWattTimeToken(R"({"token": "abcdef0123456789fedcabc"})"),
            "abcdef0123456789fedcabc");
  EXPECT_EQ(
      *ParseWattTimeRegion(
          R"({"region": "ISONE_WCMA", "region_full_name": "ISONE Western/Central Massachusetts", "signal_type": "co2_moer"})"),
      "ISONE_WCMA");
  absl::StatusOr<std::vector<WattTimeAccess>> access =
      ParseWattTimeAccess(ProviderTestdata("watttime_my_access.json"), "co2_moer");
  ASSERT_THAT(access, IsOk());
  ASSERT_EQ(access->size(), 1u);
  EXPECT_EQ((*access)[0].region, "PJM_NJ");
  EXPECT_THAT((*access)[0].endpoints, ::testing::ElementsAre("v3/forecast"));
  EXPECT_TRUE(
      ParseWattTimeAccess(ProviderTestdata("watttime_my_access.json"), "health_damage")->empty());
}

TEST(ElectricityMapsParser, LatestIsAnHourlyEstimate) {
  absl::StatusOr<Reading> reading =
      ParseElectricityMapsLatest(ProviderTestdata("electricity_maps_latest.json"), "US-CAR-DUK");
  ASSERT_THAT(reading, IsOk());
  EXPECT_EQ(reading->value, 216);
  EXPECT_TRUE(reading->estimated);
  EXPECT_EQ(reading->valid_from, Rfc3339("2024-03-06T19:00:00Z"));  // datetime, not updatedAt
  EXPECT_EQ(reading->valid_to, Rfc3339("2024-03-06T20:00:00Z"));
}

TEST(ElectricityMapsParser, HistorySkipsNullsAndHonoursGranularity) {
  absl::StatusOr<std::vector<Reading>> history =
      ParseElectricityMapsHistory(ProviderTestdata("electricity_maps_history.json"), "DE");
  ASSERT_THAT(history, IsOk());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].value, 599);
  EXPECT_FALSE((*history)[0].estimated);
  EXPECT_EQ((*history)[1].value, 570);
  EXPECT_EQ((*history)[1].valid_to - (*history)[1].valid_from, absl::Minutes(15));
}

TEST(ElectricityMapsParser, ForecastPointsAreEstimates) {
  absl::StatusOr<std::vector<Reading>> forecast =
      ParseElectricityMapsForecast(ProviderTestdata("electricity_maps_forecast.json"), "DE");
  ASSERT_THAT(forecast, IsOk());
  ASSERT_EQ(forecast->size(), 3u);
  EXPECT_EQ((*forecast)[2].value, 538);
  EXPECT_TRUE((*forecast)[2].estimated);
  EXPECT_EQ((*forecast)[2].valid_from, Rfc3339("2023-05-02T22:00:00Z"));
}

TEST(ElectricityMapsParser, NullLatestIsUnavailable) {
  EXPECT_THAT(
      ParseElectricityMapsLatest(
          R"({"zone":"DE","carbonIntensity":null,"datetime":"2024-03-06T19:00:00.000Z"})", "DE"),
      StatusIs(absl::StatusCode::kUnavailable,
               "electricity_maps DE latest: carbonIntensity is null"));
}

TEST(UkCarbonIntensityParser, NationalPrefersActualElseForecast) {
  absl::StatusOr<std::vector<Reading>> periods =
      ParseUkCarbonIntensity(ProviderTestdata("uk_national.json"), "national");
  ASSERT_THAT(periods, IsOk());
  ASSERT_EQ(periods->size(), 2u);
  EXPECT_EQ((*periods)[0].value, 263);
  EXPECT_FALSE((*periods)[0].estimated);
  EXPECT_EQ((*periods)[0].valid_from, Rfc3339("2018-01-20T12:00:00Z"));
  EXPECT_EQ((*periods)[0].valid_to, Rfc3339("2018-01-20T12:30:00Z"));
  EXPECT_EQ((*periods)[1].value, 146);  // actual is null for a future period
  EXPECT_TRUE((*periods)[1].estimated);
}

TEST(UkCarbonIntensityParser, RegionIdShape) {
  absl::StatusOr<std::vector<Reading>> periods =
      ParseUkCarbonIntensity(ProviderTestdata("uk_regionid.json"), "region/3");
  ASSERT_THAT(periods, IsOk());
  ASSERT_EQ(periods->size(), 1u);
  EXPECT_EQ((*periods)[0].value, 266);
  EXPECT_TRUE((*periods)[0].estimated);  // regional data are forecasts
}

// Not a recorded body: the regional forward-window shape with "data" as an
// object is assumed from the regionid shape, and parsed defensively.
TEST(UkCarbonIntensityParser, RegionalForwardWindowObjectShape) {
  absl::StatusOr<std::vector<Reading>> periods =
      ParseUkCarbonIntensity(ProviderTestdata("uk_regional_fw48h.json"), "region/13");
  ASSERT_THAT(periods, IsOk());
  ASSERT_EQ(periods->size(), 2u);
  EXPECT_EQ((*periods)[1].value, 175);
}

TEST(UkCarbonIntensityParser, AllRegionsShapePicksTheRegion) {
  // The documented /regional example (with its missing comma restored).
  const std::string body =
      R"({"data":[{"from":"2018-01-20T12:00Z","to":"2018-01-20T12:30Z","regions":[
      {"regionid":3,"dnoregion":"Electricity North West","shortname":"North West England",
       "intensity":{"forecast":266,"index":"moderate"},"generationmix":[{"fuel":"gas","perc":43.6}]}]}]})";
  absl::StatusOr<std::vector<Reading>> periods = ParseUkCarbonIntensity(body, "region/3");
  ASSERT_THAT(periods, IsOk());
  ASSERT_EQ(periods->size(), 1u);
  EXPECT_EQ((*periods)[0].value, 266);
  EXPECT_THAT(ParseUkCarbonIntensity(body, "region/4"),
              StatusIs(absl::StatusCode::kUnavailable, ::testing::_));
  EXPECT_THAT(ParseUkCarbonIntensity(body, "national"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs a region/<id>")));
}

TEST(UkCarbonIntensityParser, ErrorBodyIsInvalid) {
  EXPECT_THAT(
      ParseUkCarbonIntensity(R"({"error":{"code":"400 Bad Request","message":"x"}})", "national"),
      StatusIs(absl::StatusCode::kInvalidArgument, "uk_carbon_intensity national: data: missing"));
}

}  // namespace
}  // namespace carbonroute::providers
