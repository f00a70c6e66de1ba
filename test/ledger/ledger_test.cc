#include "ledger/ledger.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "ledger/power_model.h"
#include "test/testing/counter_value.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::ledger {
namespace {

using testing::CounterValue;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

TEST(PowerModel, PricesRequestsWithTheCitedCoefficients) {
  const PowerModel model;
  // 2 cores, 4 GB, no GPU: 2 × 2.12 + 4 × 0.392 = 5.808 W.
  const kube::PodRequests requests{.cpu_cores = 2, .memory_bytes = 4e9};
  EXPECT_DOUBLE_EQ(model.Watts(requests), 5.808);
  // Three replicas for an hour: 5.808 × 3 × 3600 = 62,726.4 J.
  EXPECT_DOUBLE_EQ(model.Joules(requests, 3, absl::Hours(1)), 62'726.4);
  EXPECT_DOUBLE_EQ(model.Watts({.gpus = 1}), 250);
  const PowerModel set{.watts_per_cpu = 10, .watts_per_gb = 0.375, .watts_per_gpu = 300};
  EXPECT_DOUBLE_EQ(set.Watts({.cpu_cores = 1, .memory_bytes = 2e9, .gpus = 1}), 310.75);
}

TEST(Ledger, BooksThreeIntervalsOnBothBasesAndALossAsALoss) {
  prometheus::Registry registry;
  Ledger ledger(registry);
  const LedgerKey key{.controller = "karmada", .namespace_name = "shop"};
  // 62,726.4 J an interval (= 0.017424 kWh). Chosen 100, 120, 400 g/kWh against 300, 300, 300:
  // chosen 0.017424 × 620 = 10.80288 g; counterfactual 0.017424 × 900 = 15.6816 g;
  // the third interval alone loses 0.017424 × 100 = 1.7424 g.
  for (auto [chosen, counterfactual] :
       {std::pair{100.0, 300.0}, std::pair{120.0, 300.0}, std::pair{400.0, 300.0}}) {
    ASSERT_THAT(ledger.Accrue(key, {.energy_joules = 62'726.4,
                                    .chosen_grams_per_kwh = chosen,
                                    .counterfactual_grams_per_kwh = counterfactual}),
                IsOk());
  }
  const std::map<std::string, std::string> series = {{"controller", "karmada"},
                                                     {"namespace", "shop"},
                                                     {"mode", "enforced"},
                                                     {"emissions_type", "average"}};
  auto with = [&](const std::string& name, const std::string& value) {
    auto labels = series;
    labels[name] = value;
    return labels;
  };
  EXPECT_DOUBLE_EQ(CounterValue(registry, "carbonroute_ledger_energy_joules_total",
                                with("energy_source", "model")),
                   3 * 62'726.4);
  EXPECT_NEAR(
      CounterValue(registry, "carbonroute_ledger_emissions_grams_total", with("basis", "chosen")),
      10.80288, 1e-9);
  EXPECT_NEAR(CounterValue(registry, "carbonroute_ledger_emissions_grams_total",
                           with("basis", "counterfactual")),
              15.6816, 1e-9);
  // No RTT given: no latency series.
  EXPECT_TRUE(
      std::isnan(CounterValue(registry, "carbonroute_ledger_origin_rtt_seconds_total", {})));

  // A loss alone: the chosen basis grows more than the counterfactual.
  prometheus::Registry loss_registry;
  Ledger loss(loss_registry);
  ASSERT_THAT(loss.Accrue(key, {.energy_joules = 62'726.4,
                                .chosen_grams_per_kwh = 400,
                                .counterfactual_grams_per_kwh = 300}),
              IsOk());
  EXPECT_NEAR(CounterValue(loss_registry, "carbonroute_ledger_emissions_grams_total",
                           with("basis", "counterfactual")) -
                  CounterValue(loss_registry, "carbonroute_ledger_emissions_grams_total",
                               with("basis", "chosen")),
              -1.7424, 1e-9);
}

TEST(Ledger, AnUnknownValueAddsNothingAndSaysWhichField) {
  prometheus::Registry registry;
  Ledger ledger(registry);
  const LedgerKey key{.controller = "hold",
                      .namespace_name = "batch",
                      .mode = LedgerMode::kShadow,
                      .emissions_type = EmissionsType::kMarginal};
  EXPECT_THAT(ledger.Accrue(key, {.energy_joules = 1000,
                                  .chosen_grams_per_kwh = std::numeric_limits<double>::quiet_NaN(),
                                  .counterfactual_grams_per_kwh = 300}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("chosen_grams_per_kwh must be finite and not negative, got nan")));
  EXPECT_THAT(ledger.Accrue(key, {.energy_joules = -1}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("energy_joules")));
  EXPECT_TRUE(std::isnan(CounterValue(registry, "carbonroute_ledger_energy_joules_total", {})));
  EXPECT_TRUE(std::isnan(CounterValue(registry, "carbonroute_ledger_emissions_grams_total", {})));
  ledger.Skipped("hold", EmissionsType::kMarginal, kUnknownIntensity);
  EXPECT_EQ(CounterValue(registry, "carbonroute_ledger_intervals_skipped_total",
                         {{"controller", "hold"},
                          {"emissions_type", "marginal"},
                          {"reason", "unknown_intensity"}}),
            1);
  ledger.Decided(key, kOutcomeMoved);
  EXPECT_EQ(
      CounterValue(registry, "carbonroute_ledger_decisions_total",
                   {{"mode", "shadow"}, {"outcome", "moved"}, {"emissions_type", "marginal"}}),
      1);
}

TEST(Ledger, TheLatencyPriceIsBookedOnlyWhereBothBasesHaveAnRtt) {
  prometheus::Registry registry;
  Ledger ledger(registry);
  const LedgerKey key{.controller = "karmada", .namespace_name = "shop"};
  ASSERT_THAT(ledger.Accrue(key, {.energy_joules = 1,
                                  .chosen_grams_per_kwh = 1,
                                  .counterfactual_grams_per_kwh = 1,
                                  .chosen_origin_rtt = absl::Milliseconds(30)}),
              IsOk());
  EXPECT_TRUE(
      std::isnan(CounterValue(registry, "carbonroute_ledger_origin_rtt_seconds_total", {})));
  ASSERT_THAT(ledger.Accrue(key, {.energy_joules = 1,
                                  .chosen_grams_per_kwh = 1,
                                  .counterfactual_grams_per_kwh = 1,
                                  .chosen_origin_rtt = absl::Milliseconds(30),
                                  .counterfactual_origin_rtt = absl::Milliseconds(12)}),
              IsOk());
  EXPECT_DOUBLE_EQ(
      CounterValue(registry, "carbonroute_ledger_origin_rtt_seconds_total", {{"basis", "chosen"}}),
      0.030);
  EXPECT_DOUBLE_EQ(CounterValue(registry, "carbonroute_ledger_origin_rtt_seconds_total",
                                {{"basis", "counterfactual"}}),
                   0.012);
  EXPECT_EQ(
      CounterValue(registry, "carbonroute_ledger_origin_rtt_accruals_total", {{"basis", "chosen"}}),
      1);
}

}  // namespace
}  // namespace carbonroute::ledger
