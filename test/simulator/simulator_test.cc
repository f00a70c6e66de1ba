#include "simulator/simulator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "absl/strings/str_format.h"
#include "base/data_files.h"
#include "contract/region_locations.h"
#include "contract/rtt_matrix.h"
#include "simulator/oracle_placer.h"
#include "simulator/site_placement.h"
#include "test/simulator/tiny_sites.h"
#include "test/testing/build_paths.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::simulator {
namespace {

using ::testing::DoubleNear;
using ::testing::HasSubstr;

// MakeTiny (tiny_sites.h): at 50 % idle capacity every site runs 50 units and
// has room for 50 more.

double MeanOf(const SimulationResult& result, SimulatedPolicy policy, double limit, int idle) {
  for (const SimulationRow& row : result.rows) {
    if (row.policy == policy && row.max_rtt_ms == limit && row.idle_percent == idle) {
      return row.mean_grams_per_kwh;
    }
  }
  ADD_FAILURE() << PolicyName(policy) << " " << limit << " " << idle << " not in the result";
  return -1;
}

SimulationOptions TinyOptions(std::vector<double> limits, std::vector<int> idle) {
  SimulationOptions options;
  options.max_rtt_ms = std::move(limits);
  options.idle_percent = std::move(idle);
  options.threads = 1;
  return options;
}

TEST(SiteTopology, SitesRttsAndTheSelfConvention) {
  const Tiny tiny = MakeTiny();
  ASSERT_EQ(tiny.topology.size(), 3u);
  EXPECT_EQ(tiny.topology.sites[1].zone, "B");
  EXPECT_EQ(tiny.topology.SiteOf("c1"), 2u);
  EXPECT_EQ(tiny.topology.RttMs(0, 1), 20);
  EXPECT_EQ(tiny.topology.RttMs(0, 0), kSiteSelfRttMs);
}

TEST(SiteTopology, RegionsSharingAZoneAreOneSiteWithTheSmallestRtt) {
  const IntensityTrace trace = *IntensityTrace::Parse(kTinyTrace, "tiny.csv");
  const SiteTopology topology = *BuildSiteTopology(
      *ParseRegionLocationsCsv("gcp_region,zone\na1,A\na2,A\nb1,B\nx1,X\n", "zones.csv"),
      *ParseRttMatrixCsv("sending_region,receiving_region,milliseconds\n"
                         "a1,b1,20\na2,b1,12\na1,a2,3\n",
                         "matrix.csv"),
      trace);
  ASSERT_EQ(topology.size(), 2u);
  EXPECT_THAT(topology.sites[0].regions, ::testing::ElementsAre("a1", "a2"));
  EXPECT_EQ(topology.RttMs(0, 1), 12);
  EXPECT_EQ(topology.RttMs(0, 0), kSiteSelfRttMs);  // not the 3 ms between its regions
  EXPECT_TRUE(std::isnan(topology.RttMs(1, 0)));    // b1 → a* was never measured
  ASSERT_EQ(topology.skipped.size(), 1u);
  EXPECT_EQ(topology.skipped[0].zone, "X");
  EXPECT_EQ(topology.skipped[0].why, "not in the trace");
}

// Hand-computed, per hour (cost = Σ units × intensity, 150 units of work):
//   local:       8000, 8000, 22500, 22500           → 61000 / 600 = 101.667
//   static:      means A 100, B 155, C 50; C and A keep theirs (A cannot reach
//                C), B moves 50 to C: 10000 every hour  → 40000 / 600 = 66.667
//   oracle:      hours 0–1: A's 50 to B (B has room for 50; A gains 90 a
//                unit, C only 40): 3500; hours 2–3: B's 50 to C: 10000
//                                                   → 27000 / 600 = 45
//   carbonroute: the same moves (A is the dirtiest origin in hours 0–1 and
//                chooses first; C cannot reach A's freed room within 30 ms),
//                so 45 too.
TEST(Simulate, HandComputedThreeSitesFourHours) {
  const Tiny tiny = MakeTiny();
  const absl::StatusOr<SimulationResult> result =
      Simulate(tiny.topology, tiny.trace, TinyOptions({30}, {50}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->periods, 4u);
  EXPECT_THAT(MeanOf(*result, SimulatedPolicy::kLocal, 30, 50), DoubleNear(61000.0 / 600, 1e-9));
  EXPECT_THAT(MeanOf(*result, SimulatedPolicy::kStatic, 30, 50), DoubleNear(40000.0 / 600, 1e-9));
  EXPECT_THAT(MeanOf(*result, SimulatedPolicy::kOracle, 30, 50), DoubleNear(45, 1e-9));
  EXPECT_THAT(MeanOf(*result, SimulatedPolicy::kCarbonroute, 30, 50), DoubleNear(45, 1e-9));
  const SimulationRow& static_row = result->rows[1];
  ASSERT_EQ(static_row.policy, SimulatedPolicy::kStatic);
  EXPECT_THAT(static_row.saving_percent, DoubleNear(100 * (61000.0 - 40000) / 61000, 1e-9));
  EXPECT_THAT(*static_row.oracle_saving_share,
              DoubleNear((61000.0 - 40000) / (61000 - 27000), 1e-9));
}

// At 99 % idle each site runs 1 unit and capacity never binds; with a 40 ms
// limit A reaches C too. Oracle: hours 0–1 all 3 units at B (10): 30 an hour;
// hours 2–3 all at C (50): 150 an hour → 360 / 12 = 30.
// carbonroute (τ = 0): the same: in hours 2–3 C (50 g, 40 ms) is the band
// alone, A (100 g, 5 ms) is outside it whatever its latency.
// With a carbon tolerance of 40, C (50 g, itself) is within 40 of B (10 g,
// 30 ms away) in hours 0–1, and the nearer: C's unit stays (50 instead of 10),
// 70 an hour; hours 2–3 as before (A's band ≤ 90 is C alone): 150 an hour →
// (70 + 70 + 150 + 150) / 12. At 39.9 B is the band alone again: 30.
TEST(Simulate, ALimitThatAdmitsEveryoneAndCapacityThatNeverBinds) {
  const Tiny tiny = MakeTiny();
  const absl::StatusOr<SimulationResult> result =
      Simulate(tiny.topology, tiny.trace, TinyOptions({40}, {99}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(MeanOf(*result, SimulatedPolicy::kOracle, 40, 99), DoubleNear(30, 1e-9));
  EXPECT_THAT(MeanOf(*result, SimulatedPolicy::kCarbonroute, 40, 99), DoubleNear(30, 1e-9));
  // static: every unit at C (the lowest mean) all year: 50.
  EXPECT_THAT(MeanOf(*result, SimulatedPolicy::kStatic, 40, 99), DoubleNear(50, 1e-9));

  SimulationOptions tolerant = TinyOptions({40}, {99});
  tolerant.carbon_tolerance = 40;
  const absl::StatusOr<SimulationResult> nearer = Simulate(tiny.topology, tiny.trace, tolerant);
  ASSERT_TRUE(nearer.ok()) << nearer.status();
  EXPECT_THAT(MeanOf(*nearer, SimulatedPolicy::kCarbonroute, 40, 99), DoubleNear(440.0 / 12, 1e-9));
  tolerant.carbon_tolerance = 39.9;
  const absl::StatusOr<SimulationResult> cleaner = Simulate(tiny.topology, tiny.trace, tolerant);
  ASSERT_TRUE(cleaner.ok()) << cleaner.status();
  EXPECT_THAT(MeanOf(*cleaner, SimulatedPolicy::kCarbonroute, 40, 99), DoubleNear(30, 1e-9));
}

// A limit below every RTT (and below a site's own 5 ms) or no idle capacity:
// nothing can move, every policy is local.
TEST(Simulate, NoLimitOrNoRoomMeansEveryPolicyIsLocal) {
  const Tiny tiny = MakeTiny();
  const absl::StatusOr<SimulationResult> result =
      Simulate(tiny.topology, tiny.trace, TinyOptions({0, 19}, {0, 50}));
  ASSERT_TRUE(result.ok()) << result.status();
  for (const SimulationRow& row : result->rows) {  // 19 ms: A–B at 20 ms is the shortest
    EXPECT_THAT(row.mean_grams_per_kwh, DoubleNear(61000.0 / 600, 1e-9))
        << PolicyName(row.policy) << " " << row.max_rtt_ms << " " << row.idle_percent;
    EXPECT_FALSE(row.oracle_saving_share.has_value());
  }
}

TEST(Simulate, PersistenceSeesTheSameHoursOfThePreviousDay) {
  // Two days, A steady at 100. B is 10 at day 1's first hour and 200 in the
  // rest of day 1; in day 2 the other way round. 50 % idle: each runs 50 units.
  // Perfect knowledge (= the oracle): work goes to whichever is cleaner, 1,000
  // an hour when B is clean (both at B) and 10,000 when it is dirty (both at A):
  //   1,000 + 23 × 10,000 + 10,000 + 23 × 1,000 = 264,000 → / 4,800 = 55.
  // Persistence knows nothing in day 1 and scores on the current reading,
  // which for one-hour periods is the truth; in day 2 it sees day 1's hours,
  // always the wrong way round: hour 0, A moves to B (seen 10, really 200):
  // 20,000; hours 1–23, B moves to A (seen 200, really 10): 10,000 each:
  //   1,000 + 230,000 + 20,000 + 230,000 = 481,000 → / 4,800.
  std::string csv = "datetime,A,B\n";
  for (int day = 1; day <= 2; ++day) {
    for (int hour = 0; hour < 24; ++hour) {
      const bool b_clean = (day == 1) == (hour == 0);
      csv += absl::StrFormat("2022-01-%02dT%02d:00:00Z,100,%d\n", day, hour, b_clean ? 10 : 200);
    }
  }
  const IntensityTrace trace = *IntensityTrace::Parse(csv, "two-days.csv");
  const SiteTopology topology = *BuildSiteTopology(
      *ParseRegionLocationsCsv("gcp_region,zone\na1,A\nb1,B\n", "zones.csv"),
      *ParseRttMatrixCsv("sending_region,receiving_region,milliseconds\na1,b1,20\nb1,a1,20\n",
                         "matrix.csv"),
      trace);
  SimulationOptions options = TinyOptions({50}, {50});
  options.policies = {SimulatedPolicy::kCarbonroute, SimulatedPolicy::kOracle};
  const absl::StatusOr<SimulationResult> perfect = Simulate(topology, trace, options);
  options.forecast.kind = SimulatedForecast::Kind::kPersistence;
  const absl::StatusOr<SimulationResult> persistence = Simulate(topology, trace, options);
  ASSERT_TRUE(perfect.ok() && persistence.ok());
  const double oracle = MeanOf(*perfect, SimulatedPolicy::kOracle, 50, 50);
  EXPECT_THAT(MeanOf(*perfect, SimulatedPolicy::kCarbonroute, 50, 50), DoubleNear(oracle, 1e-9));
  EXPECT_THAT(oracle, DoubleNear(55, 1e-9));
  EXPECT_THAT(MeanOf(*persistence, SimulatedPolicy::kCarbonroute, 50, 50),
              DoubleNear(481000.0 / 4800, 1e-9));
}

// Capacity binds: one clean site P (10) with room for 50 units, wanted by X
// (300, which can reach only P) and Y (400, which can also reach Q at 200,
// with room for 50). RTTs X–P, Y–P, Y–Q 20 ms; every other pair 100 ms; limit
// 50 ms; 50 % idle: 50 units each, 200 in all. Costs:
//   local:  50 × (300 + 400 + 10 + 200) = 45,500             → 227.5
//   oracle: X → P, Y → Q: 50 × (10 + 200 + 10 + 200) = 21,000 → 105
//   carbonroute without prices: Y, the dirtiest, takes P first and X has
//           nowhere to go: 50 × (10 + 300 + 10 + 200) = 26,000 → 130
//   with prices: P's price makes it no better than Q for Y; X has one best
//           site and chooses first: the oracle's 105.
TEST(Simulate, CapacityPricesGiveTheCleanSiteToTheOriginWithNoOtherChoice) {
  const IntensityTrace trace = *IntensityTrace::Parse(
      "datetime,P,Q,X,Y\n2022-01-01T00:00:00Z,10,200,300,400\n", "one-hour.csv");
  std::string matrix = "sending_region,receiving_region,milliseconds\n";
  const std::vector<std::string> regions = {"p1", "q1", "x1", "y1"};
  for (const std::string& from : regions) {
    for (const std::string& to : regions) {
      if (from == to) continue;
      const std::string pair = from < to ? from + to : to + from;
      const bool near = pair == "p1x1" || pair == "p1y1" || pair == "q1y1";
      matrix += absl::StrFormat("%s,%s,%d\n", from, to, near ? 20 : 100);
    }
  }
  const SiteTopology topology = *BuildSiteTopology(
      *ParseRegionLocationsCsv("gcp_region,zone\np1,P\nq1,Q\nx1,X\ny1,Y\n", "zones.csv"),
      *ParseRttMatrixCsv(matrix, "matrix.csv"), trace);
  SimulationOptions options = TinyOptions({50}, {50});
  const absl::StatusOr<SimulationResult> priced = Simulate(topology, trace, options);
  options.capacity_prices = false;
  const absl::StatusOr<SimulationResult> unpriced = Simulate(topology, trace, options);
  ASSERT_TRUE(priced.ok() && unpriced.ok());
  EXPECT_THAT(MeanOf(*priced, SimulatedPolicy::kLocal, 50, 50), DoubleNear(227.5, 1e-9));
  EXPECT_THAT(MeanOf(*priced, SimulatedPolicy::kOracle, 50, 50), DoubleNear(105, 1e-9));
  EXPECT_THAT(MeanOf(*priced, SimulatedPolicy::kCarbonroute, 50, 50), DoubleNear(105, 1e-9));
  EXPECT_THAT(MeanOf(*unpriced, SimulatedPolicy::kCarbonroute, 50, 50), DoubleNear(130, 1e-9));

  // The prices themselves: P full and contested (its price is between Y's
  // gain over Q, 190, and X's over home, 290); nobody else's room is wanted
  // by more than it holds... except Q's, which only Y can reach and fills.
  const PlacementLimits limits = MakePlacementLimits(topology, 50, 50, {true, true, true, true});
  OraclePlacer pricer(limits);
  const absl::StatusOr<std::vector<double>> prices = pricer.CapacityPrices({10, 200, 300, 400});
  ASSERT_TRUE(prices.ok());
  EXPECT_GE((*prices)[0], 190);
  EXPECT_LE((*prices)[0], 290);
  EXPECT_EQ((*prices)[2], 0);  // X: its own room is wanted by nobody
}

TEST(Simulate, ANoisyForecastIsSeededAndCostsSomething) {
  const Tiny tiny = MakeTiny();
  SimulationOptions options = TinyOptions({30}, {50});
  options.policies = {SimulatedPolicy::kCarbonroute};
  options.forecast = *ParseSimulatedForecast("noisy:0");
  const absl::StatusOr<SimulationResult> exact = Simulate(tiny.topology, tiny.trace, options);
  ASSERT_TRUE(exact.ok());
  EXPECT_THAT(MeanOf(*exact, SimulatedPolicy::kCarbonroute, 30, 50), DoubleNear(45, 1e-9));
  // With errors of 100 % on average some hour is misjudged; two runs agree.
  options.forecast = *ParseSimulatedForecast("noisy:100");
  const absl::StatusOr<SimulationResult> first = Simulate(tiny.topology, tiny.trace, options);
  const absl::StatusOr<SimulationResult> second = Simulate(tiny.topology, tiny.trace, options);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(MeanOf(*first, SimulatedPolicy::kCarbonroute, 30, 50),
            MeanOf(*second, SimulatedPolicy::kCarbonroute, 30, 50));
  EXPECT_GT(MeanOf(*first, SimulatedPolicy::kCarbonroute, 30, 50), 45);
}

TEST(OraclePlacer, NeverExceedsCapacityAndKeepsNonOriginsHome) {
  const Tiny tiny = MakeTiny();
  PlacementLimits limits =
      MakePlacementLimits(tiny.topology, 300, 50, {true, false, true});  // B is not an origin
  OraclePlacer oracle(limits);
  const absl::StatusOr<Placement> placement = oracle.Place({100, 10, 50});
  ASSERT_TRUE(placement.ok());
  EXPECT_THAT(CheckPlacement(limits, *placement), testing::IsOk());
  EXPECT_EQ(placement->at(1, 1), 50);  // B's own work stays
  // B has room for 50 more. A's 50 there and C's at home, or C's there and
  // A's in the room C leaves, both cost 50 × 10 + 50 × 50 = 3,000; every other
  // placement costs more.
  EXPECT_EQ(placement->at(0, 1) + placement->at(2, 1), 50);
  EXPECT_DOUBLE_EQ(OriginsCost(limits, *placement, {100, 10, 50}), 3000);
}

TEST(CheckPlacement, FindsOverCapacityAndMovesBeyondTheLimit) {
  const Tiny tiny = MakeTiny();
  const PlacementLimits limits = MakePlacementLimits(tiny.topology, 30, 50, {true, true, true});
  Placement over = LocalPlacement(limits);
  over.at(0, 0) = 0;
  over.at(0, 1) = 50;
  over.at(2, 2) = 0;
  over.at(2, 1) = 50;  // B: 150 units
  EXPECT_THAT(CheckPlacement(limits, over).message(), HasSubstr("B runs 150 units"));
  Placement far = LocalPlacement(limits);
  far.at(0, 0) = 0;
  far.at(0, 2) = 50;  // A → C is 40 ms
  EXPECT_THAT(CheckPlacement(limits, far).message(), HasSubstr("A → C is beyond 30 ms"));
}

// The shipped year: 31 sites × 8,759 hours.
class ShippedData : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string dir = std::string(CARBONROUTE_SOURCE_DIR) + "/data/";
    trace_ = new IntensityTrace(*IntensityTrace::Load(dir + "carbon-intensity-2022-hourly.csv"));
    topology_ = new SiteTopology(*BuildSiteTopology(
        *ParseRegionLocationsCsv(*ReadFileToString(dir + "gcp-region-zones.csv", "zones"), "z"),
        *ParseRttMatrixCsv(*ReadFileToString(dir + "gcp-inter-region-latency-ms.csv", "rtt"), "m"),
        *trace_));
  }
  static IntensityTrace* trace_;
  static SiteTopology* topology_;
};
IntensityTrace* ShippedData::trace_ = nullptr;
SiteTopology* ShippedData::topology_ = nullptr;

TEST_F(ShippedData, InvariantsHoldInEveryPeriod) {
  SimulationOptions options;
  options.max_rtt_ms = {0, 100, 300};
  options.idle_percent = {0, 50};
  options.threads = 2;
  const absl::StatusOr<SimulationResult> result = Simulate(*topology_, *trace_, options);
  ASSERT_TRUE(result.ok()) << result.status();
  // Every placement was checked: local and static once, oracle and
  // carbonroute every period, for each of the 6 configurations.
  EXPECT_EQ(result->placements_checked, 6 * (2 + 2 * trace_->hours()));
  // The oracle is never above another policy in any period (up to its
  // 1/10,000 gCO2eq/kWh cost rounding).
  EXPECT_LE(result->worst_oracle_excess, 1e-6);
  for (const SimulationRow& row : result->rows) {
    const double local = MeanOf(*result, SimulatedPolicy::kLocal, row.max_rtt_ms, row.idle_percent);
    if (row.max_rtt_ms == 0 || row.idle_percent == 0) {
      EXPECT_EQ(row.mean_grams_per_kwh, local) << PolicyName(row.policy) << " " << row.max_rtt_ms;
    } else {
      EXPECT_LE(MeanOf(*result, SimulatedPolicy::kOracle, row.max_rtt_ms, row.idle_percent),
                row.mean_grams_per_kwh + 1e-9);
      EXPECT_LT(MeanOf(*result, SimulatedPolicy::kOracle, row.max_rtt_ms, row.idle_percent), local);
    }
  }
}

// Every figure of a result, to the last bit (%a), in row order.
std::string Exact(const SimulationResult& result) {
  std::string out = absl::StrFormat("periods=%d\n", result.periods);
  for (const SimulationRow& row : result.rows) {
    absl::StrAppendFormat(&out, "%s %a %d %a %a %a\n", PolicyName(row.policy), row.max_rtt_ms,
                          row.idle_percent, row.mean_grams_per_kwh, row.saving_percent,
                          row.oracle_saving_share.value_or(-1));
  }
  return out;
}

TEST_F(ShippedData, TwoRunsGiveIdenticalOutputWhateverTheThreads) {
  SimulationOptions options;
  options.max_rtt_ms = {50, 150};
  options.idle_percent = {50};
  options.runtime_hours = 4;
  options.forecast.kind = SimulatedForecast::Kind::kPersistence;
  std::string exact[2];
  for (int run = 0; run < 2; ++run) {
    options.threads = run + 1;
    const absl::StatusOr<SimulationResult> result = Simulate(*topology_, *trace_, options);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->rows.size(), 2u * options.policies.size());
    exact[run] = Exact(*result);
  }
  EXPECT_EQ(exact[0], exact[1]);
}

TEST(Simulate, BadOptionsNameTheFieldAndValue) {
  const Tiny tiny = MakeTiny();
  SimulationOptions options = TinyOptions({-1}, {50});
  EXPECT_THAT(Simulate(tiny.topology, tiny.trace, options).status().message(),
              HasSubstr("max_rtt_ms: -1"));
  options = TinyOptions({50}, {100});
  EXPECT_THAT(Simulate(tiny.topology, tiny.trace, options).status().message(),
              HasSubstr("idle_percent: 100"));
  options = TinyOptions({50}, {50});
  options.runtime_hours = 5;  // the trace has 4 hours
  EXPECT_THAT(Simulate(tiny.topology, tiny.trace, options).status().message(),
              HasSubstr("runtime_hours: 5"));
  options = TinyOptions({50}, {50});
  options.carbon_tolerance = -1;
  EXPECT_THAT(Simulate(tiny.topology, tiny.trace, options).status().message(),
              HasSubstr("carbon_tolerance: -1"));
}

}  // namespace
}  // namespace carbonroute::simulator
