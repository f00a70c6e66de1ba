#include "providers/static_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/testing/status_matchers.h"

namespace carbonroute::providers {
namespace {

using testing::IsOk;
using testing::StatusIs;

StaticSettings Settings() {
  StaticSettings settings;
  settings.emissions_type = EmissionsType::kMarginal;
  settings.validity = absl::Minutes(30);
  settings.grams_per_kwh = {{"A", 120}, {"B", 5}};
  return settings;
}

TEST(StaticProvider, ReadingIsAlignedToValidity) {
  StaticProvider provider("fixed", Settings());
  EXPECT_THAT(provider.locations(), ::testing::ElementsAre("A", "B"));
  const absl::Time now =
      absl::FromUnixSeconds(1'800'000'000 + 1000);  // 16 min 40 s past a half hour
  absl::StatusOr<Reading> reading = provider.Current("A", now);
  ASSERT_THAT(reading, IsOk());
  EXPECT_EQ(reading->value, 120);
  EXPECT_EQ(provider.emissions_type(), EmissionsType::kMarginal);
  EXPECT_EQ(reading->valid_from, absl::FromUnixSeconds(1'800'000'000));
  EXPECT_EQ(reading->valid_to, absl::FromUnixSeconds(1'800'000'000 + 1800));
}

TEST(StaticProvider, ForecastRepeatsTheValueUpToTheHorizon) {
  StaticProvider provider("fixed", Settings());
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000 + 1000);
  absl::StatusOr<std::vector<Reading>> forecast = provider.Forecast("B", now, absl::Hours(2));
  ASSERT_THAT(forecast, IsOk());
  ASSERT_EQ(forecast->size(), 1u);  // one constant point, [0:00, 2:30) covers now + 2h = 2:16:40
  EXPECT_EQ(forecast->front().valid_from, absl::FromUnixSeconds(1'800'000'000));
  EXPECT_EQ(forecast->front().valid_to, absl::FromUnixSeconds(1'800'000'000) + absl::Minutes(150));
  EXPECT_EQ(forecast->front().value, 5);
}

TEST(StaticProvider, AShortValidityStillForecastsOnePoint) {
  StaticSettings settings = Settings();
  settings.validity = absl::Seconds(1);
  StaticProvider provider("fixed", settings);
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000) + absl::Milliseconds(300);
  absl::StatusOr<std::vector<Reading>> forecast = provider.Forecast("B", now, absl::Hours(192));
  ASSERT_THAT(forecast, IsOk());
  ASSERT_EQ(forecast->size(), 1u);  // not 691,201
  EXPECT_EQ(forecast->front().valid_from, absl::FromUnixSeconds(1'800'000'000));
  EXPECT_EQ(forecast->front().valid_to,
            absl::FromUnixSeconds(1'800'000'000) + absl::Hours(192) + absl::Seconds(1));
}

TEST(StaticProvider, UnknownLocationIsNotFound) {
  StaticProvider provider("fixed", Settings());
  EXPECT_THAT(
      provider.Current("C", absl::UnixEpoch()),
      StatusIs(absl::StatusCode::kNotFound, "provider \"fixed\": no value configured for \"C\""));
}

}  // namespace
}  // namespace carbonroute::providers
