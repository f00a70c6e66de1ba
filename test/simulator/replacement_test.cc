#include "simulator/replacement.h"

#include <gtest/gtest.h>

#include "contract/region_locations.h"
#include "contract/rtt_matrix.h"

namespace carbonroute::simulator {
namespace {

// Two zones 20 ms apart; A is cleaner for two hours, then B by 250 gCO2eq/kWh.
constexpr char kTrace[] =
    "datetime,A,B\n"
    "2022-01-01T00:00:00Z,100,200\n"
    "2022-01-01T01:00:00Z,100,200\n"
    "2022-01-01T02:00:00Z,300,50\n"
    "2022-01-01T03:00:00Z,300,50\n"
    "2022-01-01T04:00:00Z,300,50\n"
    "2022-01-01T05:00:00Z,300,50\n";

struct Sites {
  IntensityTrace trace;
  SiteTopology topology;
};

Sites Make() {
  absl::StatusOr<IntensityTrace> trace = IntensityTrace::Parse(kTrace, "trace.csv");
  EXPECT_TRUE(trace.ok()) << trace.status();
  absl::StatusOr<SiteTopology> topology = BuildSiteTopology(
      *ParseRegionLocationsCsv("gcp_region,zone\na1,A\nb1,B\n", "zones.csv"),
      *ParseRttMatrixCsv("sending_region,receiving_region,milliseconds\na1,b1,20\nb1,a1,20\n",
                         "matrix.csv"),
      *trace);
  EXPECT_TRUE(topology.ok()) << topology.status();
  return {*std::move(trace), *std::move(topology)};
}

ReplacementOptions Options() {
  return {.max_rtt_ms = {25, 10},
          .tolerances = {50},
          .restart_minutes = {60, 1200},
          .lifetime_hours = 6,
          .min_stay = absl::Minutes(30),
          .horizon = absl::Hours(4)};
}

// By hand, per watt: both services (one arriving at A, one at B, at hour 0) are bound to A (100
// against 200). At hour 2 B is 250 cleaner; minStay (30 min: one whole hour) lets them move at
// hour 3, when 4 h × 250 = 1 g beats a restart of 60 min × 50 = 0.05 g. Each: bind time 0.1 +
// 0.1 + 4 × 0.3 = 1.4 g; rebalance 0.1 + 0.1 + 0.3 + 3 × 0.05 + 0.05 = 0.7 g; local 1.4 (A) and
// 0.6 (B). Over 12 service-hours (0.012 kWh): local 166.7, bind 233.3, rebalance 116.7 gCO2eq/kWh;
// 50 % extra; 2 moves in half a workload-day.
TEST(SimulateReplacement, HandComputedMoveAfterMinStay) {
  const Sites sites = Make();
  absl::StatusOr<std::vector<ReplacementRow>> rows =
      SimulateReplacement(sites.topology, sites.trace, {}, Options());
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 4u);
  const ReplacementRow& moved = (*rows)[0];
  EXPECT_EQ(moved.group, "Global");
  EXPECT_EQ(moved.max_rtt_ms, 25);
  EXPECT_EQ(moved.restart_minutes, 60);
  EXPECT_EQ(moved.services, 2u);
  EXPECT_DOUBLE_EQ(moved.workload_days, 0.5);
  EXPECT_NEAR(moved.local_mean, 2000.0 / 12, 1e-9);
  EXPECT_NEAR(moved.bind_mean, 2800.0 / 12, 1e-9);
  EXPECT_NEAR(moved.rebalance_mean, 1400.0 / 12, 1e-9);
  EXPECT_NEAR(moved.extra_saving_percent, 50, 1e-9);
  EXPECT_DOUBLE_EQ(moved.moves_per_workload_day, 4);
  // A restart of 20 h of power costs 1 g at B: no more than the 1 g the horizon earns: no move.
  const ReplacementRow& dear = (*rows)[1];
  EXPECT_EQ(dear.restart_minutes, 1200);
  EXPECT_DOUBLE_EQ(dear.moves_per_workload_day, 0);
  EXPECT_NEAR(dear.rebalance_mean, dear.bind_mean, 1e-9);
  EXPECT_EQ(dear.extra_saving_percent, 0);
  // Within 10 ms neither site reaches the other: bind time is local, and nothing moves.
  const ReplacementRow& near = (*rows)[2];
  EXPECT_EQ(near.max_rtt_ms, 10);
  EXPECT_NEAR(near.bind_mean, near.local_mean, 1e-9);
  EXPECT_DOUBLE_EQ(near.moves_per_workload_day, 0);
}

TEST(SimulateReplacement, AToleranceAboveTheGapMovesNothing) {
  const Sites sites = Make();
  ReplacementOptions options = Options();
  options.tolerances = {250};
  absl::StatusOr<std::vector<ReplacementRow>> rows =
      SimulateReplacement(sites.topology, sites.trace, {}, options);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_DOUBLE_EQ((*rows)[0].moves_per_workload_day, 0);
}

TEST(SimulateReplacement, RefusesBadOptionsNamingThem) {
  const Sites sites = Make();
  ReplacementOptions options = Options();
  options.tolerances = {-1};
  absl::StatusOr<std::vector<ReplacementRow>> rows =
      SimulateReplacement(sites.topology, sites.trace, {}, options);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().message(), "tolerances: -1 is not a finite number ≥ 0");
  options = Options();
  options.groups = {"Europe"};
  rows = SimulateReplacement(sites.topology, sites.trace, {{"Europe", {"DE"}}}, options);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().message(), "group Europe: none of its zones is a site of the topology");
}

}  // namespace
}  // namespace carbonroute::simulator
