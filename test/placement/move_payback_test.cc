#include "placement/move_payback.h"

#include <gtest/gtest.h>

namespace carbonroute::placement {
namespace {

// 10 W from Germany (380 gCO2eq/kWh) to France (56), a restart of 1 kJ, over 1 h:
// gap 324; saving 10 W × 3600 s / 3.6e6 J/kWh × 324 = 3.24 g; cost 1000 / 3.6e6 × 56 =
// 0.01556 g; payback 1000 × 56 / (10 × 324) = 17.284 s.
constexpr MoveTerms kTerms{
    .watts = 10, .restart_joules = 1000, .horizon = absl::Hours(1), .tolerance = 50};

TEST(PriceMove, HandComputedWithoutForecast) {
  const MovePrice price = PriceMove({.grams_per_kwh = 380}, {.grams_per_kwh = 56}, kTerms);
  EXPECT_DOUBLE_EQ(price.gap_now, 324);
  EXPECT_EQ(price.gap_basis, "current");
  EXPECT_NEAR(price.saving_grams, 3.24, 1e-12);
  EXPECT_NEAR(price.cost_grams, 1000 / 3.6e6 * 56, 1e-15);
  EXPECT_NEAR(absl::ToDoubleSeconds(price.payback), 56000.0 / 3240, 1e-9);
  EXPECT_FALSE(price.forecast_closes_gap);
  EXPECT_TRUE(price.pays(50));
  EXPECT_EQ(price.WhyNot(50), "");
}

TEST(PriceMove, AForecastThatClosesTheGapBeforePaybackStopsIt) {
  // The 1 h window covers both the payback and the horizon: France's mean is above Germany's.
  const MovePrice price = PriceMove({.grams_per_kwh = 380, .forecast_mean = {{"1h", 100}}},
                                    {.grams_per_kwh = 56, .forecast_mean = {{"1h", 120}}}, kTerms);
  EXPECT_TRUE(price.forecast_closes_gap);
  EXPECT_EQ(price.gap_basis, "forecast 1h");
  EXPECT_DOUBLE_EQ(price.expected_gap, -20);
  EXPECT_FALSE(price.pays(50));
  EXPECT_EQ(price.WhyNot(50), "the forecast closes the gap before the move pays back (17s)");
}

TEST(PriceMove, ARestartDearerThanTheSavingOrAGapWithinToleranceDoesNotPay) {
  MoveTerms dear = kTerms;
  dear.restart_joules = 1e6;  // 15.6 g at France
  const MovePrice price = PriceMove({.grams_per_kwh = 380}, {.grams_per_kwh = 56}, dear);
  EXPECT_FALSE(price.pays(50));
  EXPECT_EQ(price.WhyNot(50),
            "the expected saving, 3.240 g, does not exceed the restart's 15.556 g");
  const MovePrice close = PriceMove({.grams_per_kwh = 100}, {.grams_per_kwh = 60}, kTerms);
  EXPECT_FALSE(close.pays(50));
  EXPECT_EQ(close.WhyNot(50), "the gap, 40.0 gCO2eq/kWh, is within the tolerance of 50");
}

}  // namespace
}  // namespace carbonroute::placement
