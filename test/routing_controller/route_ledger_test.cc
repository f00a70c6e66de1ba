#include "routing_controller/route_ledger.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "test/testing/counter_value.h"

namespace carbonroute::routing {
namespace {

using testing::CounterValue;

const absl::Time kLedgerStart = absl::FromUnixSeconds(1'800'000'000);

// Origin de/* may reach de/* (380 g, 5 ms), be/* (150 g, 7 ms) and fr/* (56 g, 10 ms).
RoutePlan LedgerPlan() {
  RoutePlan plan;
  plan.rows.push_back({.origin = "de/*",
                       .demand = 1,
                       .flows = {{.destination = "fr/*",
                                  .grams_per_kwh = 56,
                                  .rtt = absl::Milliseconds(10),
                                  .allowed = true},
                                 {.destination = "be/*",
                                  .grams_per_kwh = 150,
                                  .rtt = absl::Milliseconds(7),
                                  .allowed = true},
                                 {.destination = "de/*",
                                  .grams_per_kwh = 380,
                                  .rtt = absl::Milliseconds(5),
                                  .allowed = true}}});
  for (const char* locality : {"de/*", "be/*", "fr/*"}) {
    plan.emissions_types[locality] = EmissionsType::kAverage;
    plan.endpoints[locality] = 4;
  }
  return plan;
}

struct LedgerHarness {
  prometheus::Registry registry;
  ledger::Ledger ledger{registry};
  RouteLedger route{ledger, ledger::LedgerMode::kEnforced, absl::Minutes(3)};
  RoutePlan plan = LedgerPlan();

  RouteBooking Booking(std::optional<std::map<std::string, double>> requests = {{{"de/*", 10}}}) {
    return {.key = "p1/checkout",
            .namespace_name = "shop",
            .joules_per_request = 36,
            .requests_per_second = std::move(requests),
            .chosen = {{"de/*", {{"fr/*", 0.4}, {"be/*", 0.4}, {"de/*", 0.2}}}},
            .counterfactual = {{"de/*", {{"de/*", 1}}}},
            .plan = &plan};
  }
  double Grams(const std::string& basis) {
    return CounterValue(registry, "carbonroute_ledger_emissions_grams_total",
                        {{"controller", "route"}, {"basis", basis}});
  }
  double Skipped(const std::string& reason) {
    return CounterValue(registry, "carbonroute_ledger_intervals_skipped_total",
                        {{"controller", "route"}, {"reason", reason}});
  }
};

// 10 requests/s for a minute at 36 J each: 21,600 J = 0.006 kWh. Under the written weights
// 0.4 × 56 + 0.4 × 150 + 0.2 × 380 = 158.4 g/kWh → 0.9504 g; 100 % local, 380 → 2.28 g.
// RTT from the origin: 0.4 × 10 + 0.4 × 7 + 0.2 × 5 = 7.8 ms against 5 ms.
TEST(RouteLedger, AMinuteOfRequestsIsPricedUnderTheWeightsAgainstLocal) {
  LedgerHarness h;
  h.route.Book(h.Booking(), kLedgerStart);  // opens the interval
  EXPECT_TRUE(std::isnan(h.Grams("chosen")));
  h.route.Book(h.Booking(), kLedgerStart + absl::Minutes(1));
  EXPECT_DOUBLE_EQ(CounterValue(h.registry, "carbonroute_ledger_energy_joules_total",
                                {{"controller", "route"},
                                 {"energy_source", "declared"},
                                 {"namespace", "shop"},
                                 {"mode", "enforced"}}),
                   21'600);
  EXPECT_NEAR(h.Grams("chosen"), 0.9504, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual"), 2.28, 1e-9);
  EXPECT_NEAR(CounterValue(h.registry, "carbonroute_ledger_origin_rtt_seconds_total",
                           {{"controller", "route"}, {"basis", "chosen"}}),
              0.0078, 1e-12);
  EXPECT_NEAR(CounterValue(h.registry, "carbonroute_ledger_origin_rtt_seconds_total",
                           {{"controller", "route"}, {"basis", "counterfactual"}}),
              0.005, 1e-12);
  EXPECT_DOUBLE_EQ(CounterValue(h.registry, "carbonroute_ledger_decisions_total",
                                {{"controller", "route"}, {"outcome", "kept"}}),
                   2);
}

// Sent dirtier than local (a latency limit, or France turned dirty in the hour): a loss, booked.
TEST(RouteLedger, ALossIsBookedAsALoss) {
  LedgerHarness h;
  h.plan.rows[0].flows[0].grams_per_kwh = 500;  // fr/* now 500
  h.route.Book(h.Booking(), kLedgerStart);
  h.route.Book(h.Booking(), kLedgerStart + absl::Minutes(1));
  // 0.4 × 500 + 0.4 × 150 + 0.2 × 380 = 336 < 380: still a gain; all to France is a loss.
  RouteBooking all_fr = h.Booking();
  all_fr.chosen = {{"de/*", {{"fr/*", 1}}}};
  h.route.Book(all_fr, kLedgerStart + absl::Minutes(2));
  EXPECT_NEAR(h.Grams("chosen"), 0.006 * 336 + 0.006 * 500, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual"), 2 * 0.006 * 380, 1e-9);
  EXPECT_GT(h.Grams("chosen") - h.Grams("counterfactual"), 0);  // a loss, not hidden
}

TEST(RouteLedger, WhatCannotBePricedIsSkippedWithItsReasonNeverZero) {
  LedgerHarness h;
  h.route.Book(h.Booking(std::nullopt), kLedgerStart);
  h.route.Book(h.Booking(std::nullopt), kLedgerStart + absl::Minutes(1));  // no --prometheus
  EXPECT_DOUBLE_EQ(h.Skipped("unknown_energy"), 1);
  h.route.Book(h.Booking(), kLedgerStart + absl::Minutes(5));  // 4 minutes > 3: not vouched for
  EXPECT_DOUBLE_EQ(h.Skipped("gap"), 1);
  RouteBooking unknown = h.Booking();
  unknown.chosen = {{"de/*", {{"xx/*", 1}}}};  // a destination without a reading
  h.route.Book(unknown, kLedgerStart + absl::Minutes(6));
  EXPECT_DOUBLE_EQ(h.Skipped("unknown_intensity"), 1);
  h.plan.emissions_types["be/*"] = EmissionsType::kMarginal;
  h.route.Book(h.Booking(), kLedgerStart + absl::Minutes(7));
  EXPECT_DOUBLE_EQ(h.Skipped("mixed_emissions_types"), 1);
  EXPECT_TRUE(std::isnan(h.Grams("chosen")));  // nothing booked as 0
  // A policy without joulesPerRequest books nothing at all, not even its decisions.
  LedgerHarness silent;
  RouteBooking undeclared = silent.Booking();
  undeclared.joules_per_request.reset();
  silent.route.Book(undeclared, kLedgerStart);
  silent.route.Book(undeclared, kLedgerStart + absl::Minutes(1));
  EXPECT_TRUE(std::isnan(CounterValue(silent.registry, "carbonroute_ledger_decisions_total", {})));
}

// No joulesPerRequest, route --prometheus: the Service's Pods' measured energy in the interval,
// shared over the origins by their requests. Kepler measured 28,800 J of web-a and web-b in the
// minute; Germany sent 10 requests/s and Belgium 30: Germany's share 7,200 J = 0.002 kWh, under
// 158.4 g/kWh → 0.3168 g against 380 → 0.76 g (Belgium keeps its own, 150 both ways).
TEST(RouteLedger, WithoutJoulesPerRequestThePodsMeasuredEnergyIsSharedByTheRequests) {
  LedgerHarness h;
  std::vector<std::tuple<std::string, std::string, absl::Time, absl::Time>> asked;
  bool measured = true;
  h.route.SetMeter([&](const std::string& namespace_name, const std::string& pods, absl::Time from,
                       absl::Time to) -> absl::StatusOr<std::vector<ledger::PodEnergy>> {
    asked.emplace_back(namespace_name, pods, from, to);
    if (!measured) return std::vector<ledger::PodEnergy>{};
    return std::vector<ledger::PodEnergy>{{28'800, ledger::EnergySource::kKepler}};
  });
  RouteBooking booking = h.Booking({{{"de/*", 10}, {"be/*", 30}}});
  booking.joules_per_request.reset();
  booking.pods = {{"shop", {"web-a", "web-b"}}};
  booking.chosen["be/*"] = {{"be/*", 1}};
  booking.counterfactual["be/*"] = {{"be/*", 1}};
  h.route.Book(booking, kLedgerStart);
  h.route.Book(booking, kLedgerStart + absl::Minutes(1));
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], std::make_tuple(std::string("shop"), std::string("web-a|web-b"), kLedgerStart,
                                      kLedgerStart + absl::Minutes(1)));
  EXPECT_DOUBLE_EQ(CounterValue(h.registry, "carbonroute_ledger_energy_joules_total",
                                {{"controller", "route"}, {"energy_source", "kepler"}}),
                   28'800);
  EXPECT_NEAR(h.Grams("chosen"), 0.002 * 158.4 + 0.006 * 150, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual"), 0.002 * 380 + 0.006 * 150, 1e-9);
  // A minute nothing measured: skipped, never 0.
  measured = false;
  h.route.Book(booking, kLedgerStart + absl::Minutes(2));
  EXPECT_DOUBLE_EQ(h.Skipped("unknown_energy"), 1);
}

TEST(WithMeshDefault, LocalWhileTheOriginHasEndpointsElseByEndpoints) {
  const OriginShares shares =
      WithMeshDefault(SharesOfRows({{"be/*", {{"fr/*", 70}, {"be/*", 30}}}}),
                      {"be/*", "de/*", "gw/*"}, {{"be/*", 1}, {"de/*", 2}, {"fr/*", 1}});
  EXPECT_EQ(shares.at("be/*"), (std::map<std::string, double>{{"be/*", 0.3}, {"fr/*", 0.7}}));
  EXPECT_EQ(shares.at("de/*"), (std::map<std::string, double>{{"de/*", 1}}));
  EXPECT_EQ(shares.at("gw/*"),
            (std::map<std::string, double>{{"be/*", 0.25}, {"de/*", 0.5}, {"fr/*", 0.25}}));
}

}  // namespace
}  // namespace carbonroute::routing
