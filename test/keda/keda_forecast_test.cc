#include "keda/keda_forecast.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "test/keda/fake_carbon_aware_data.h"
#include "test/keda/operator_decoding.h"

namespace carbonroute::keda {
namespace {

using Json = nlohmann::json;

const absl::Time kT0 = absl::FromUnixSeconds(1795478400);  // 2026-11-24T00:00:00Z

class KedaForecastTest : public ::testing::Test {
 protected:
  KedaForecastTest() {
    // Hourly observed readings from T0 to T0+4h; the forecast from T0+3h, half-hourly.
    for (int h = 0; h < 4; ++h) {
      data_.observed["US-MIDA-PJM"].push_back(
          {kT0 + absl::Hours(h), kT0 + absl::Hours(h + 1), 300.0 + h});
    }
    for (int i = 0; i < 6; ++i) {
      data_.forecast["US-MIDA-PJM"].points.push_back(
          {kT0 + absl::Hours(3) + absl::Minutes(30 * i),
           kT0 + absl::Hours(3) + absl::Minutes(30 * (i + 1)), 400.0 - 10 * i});
    }
    data_.forecast["US-MIDA-PJM"].fetched_at = kT0 + absl::Hours(3) + absl::Minutes(1);
  }
  testing::FakeCarbonAwareData data_;
};

TEST_F(KedaForecastTest, PastReadingsThenTheForecastNeverOverlapping) {
  const absl::Time now = kT0 + absl::Hours(3) + absl::Minutes(10);
  absl::StatusOr<KedaForecast> forecast =
      ReadKedaForecast(data_, "US-MIDA-PJM", "eastus", now, absl::Hours(2));
  ASSERT_TRUE(forecast.ok()) << forecast.status();
  // Readings overlapping [now - 2h, forecast start): T0+1h, T0+2h; then 6 forecast points.
  ASSERT_EQ(forecast->records.size(), 8u);
  EXPECT_EQ(forecast->forecast_records, 6u);
  EXPECT_EQ(forecast->records[0], (ForecastRecord{kT0 + absl::Hours(1), 60, 301}));
  EXPECT_EQ(forecast->records[1], (ForecastRecord{kT0 + absl::Hours(2), 60, 302}));
  EXPECT_EQ(forecast->records[2], (ForecastRecord{kT0 + absl::Hours(3), 30, 400}));
  EXPECT_EQ(forecast->records[7], (ForecastRecord{kT0 + absl::Minutes(5 * 60 + 30), 30, 350}));
  EXPECT_EQ(forecast->message, "");
}

TEST_F(KedaForecastTest, TheOperatorDecodesItAndFindsTheSlotOfNow) {
  const absl::Time now = kT0 + absl::Hours(3) + absl::Minutes(40);
  absl::StatusOr<KedaForecast> forecast =
      ReadKedaForecast(data_, "US-MIDA-PJM", "eastus", now, absl::Hours(24));
  ASSERT_TRUE(forecast.ok());
  const Json configmap =
      Json::parse(ConfigMapObject(*forecast, "carbon-intensity", "kube-system", "data", now));
  EXPECT_EQ(configmap["metadata"]["name"], "carbon-intensity");
  EXPECT_EQ(configmap["data"]["numOfRecords"], "9");  // 4 observed (the last cut at 03:30), 5 ahead
  EXPECT_EQ(configmap["data"]["minForecast"], "350.000000");
  EXPECT_EQ(configmap["data"]["maxForecast"], "390.000000");  // from the slot of now on
  EXPECT_EQ(configmap["data"]["forecastDateTime"], "2026-11-24T03:01:00Z");
  EXPECT_EQ(configmap["data"]["lastHeartbeatTime"], "2026-11-24T03:40:00Z");
  absl::StatusOr<std::vector<testing::OperatorRecord>> records =
      testing::DecodeAsTheOperatorDoes(configmap, "data");
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 9u);
  const testing::OperatorRecord* slot = testing::CurrentSlot(*records, now);
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(slot->value, 390);  // the 03:30 forecast point
  EXPECT_EQ(slot->location, "eastus");
  EXPECT_EQ(testing::CurrentSlot(*records, kT0 + absl::Minutes(30))->value, 300);  // the past
  EXPECT_EQ(testing::CurrentSlot(*records, kT0 + absl::Hours(7)), nullptr);        // past the end
}

TEST_F(KedaForecastTest, WithoutAForecastTheReadingsAreWrittenAndTheMessageSaysSo) {
  data_.forecast.clear();
  const absl::Time now = kT0 + absl::Hours(3) + absl::Minutes(10);
  absl::StatusOr<KedaForecast> forecast =
      ReadKedaForecast(data_, "US-MIDA-PJM", "eastus", now, absl::Hours(24));
  ASSERT_TRUE(forecast.ok());
  EXPECT_EQ(forecast->records.size(), 4u);  // the one covering now included
  EXPECT_EQ(forecast->forecast_records, 0u);
  EXPECT_THAT(forecast->message, ::testing::HasSubstr("no forecast cached yet"));
  const Json patch = Json::parse(ConfigMapPatch(*forecast, "data", now));
  EXPECT_EQ(patch["data"]["forecastDateTime"], "");
  EXPECT_FALSE(patch.contains("metadata"));  // a merge patch keeps the metadata
}

TEST_F(KedaForecastTest, TheCachesErrorIsReturned) {
  data_.fail = true;
  // The cache's own error, code and message, not one made up on the way.
  const absl::StatusOr<KedaForecast> forecast =
      ReadKedaForecast(data_, "US-MIDA-PJM", "eastus", kT0, absl::Hours(1));
  EXPECT_EQ(forecast.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(forecast.status().message(), "the cache cannot be read");
}

}  // namespace
}  // namespace carbonroute::keda
