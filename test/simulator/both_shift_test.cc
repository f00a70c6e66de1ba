#include "simulator/both_shift.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "contract/region_locations.h"
#include "contract/rtt_matrix.h"
#include "test/simulator/tiny_sites.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::simulator {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// MakeTiny: tiny_sites.h's three sites and four hours.

std::vector<double> Column(const IntensityTrace& trace, std::size_t zone) {
  std::vector<double> values;
  for (std::size_t h = 0; h < trace.hours(); ++h) values.push_back(*trace.Value(zone, h));
  return values;
}

TEST(ReachableTraces, TheCleanestSiteWithinTheLimitEachHour) {
  const Tiny tiny = MakeTiny();
  absl::StatusOr<ReachableTraces> traces = MakeReachableTraces(tiny.topology, tiny.trace, 30);
  ASSERT_TRUE(traces.ok()) << traces.status();
  EXPECT_THAT(traces->reachable.zones(), ElementsAre("A", "B", "C"));
  EXPECT_THAT(Column(traces->home, 1), ElementsAre(10, 10, 300, 300));
  // A reaches B (20 ms), not C (40 ms); B reaches both; C reaches B.
  EXPECT_THAT(Column(traces->reachable, 0), ElementsAre(10, 10, 100, 100));
  EXPECT_THAT(Column(traces->reachable, 1), ElementsAre(10, 10, 50, 50));
  EXPECT_THAT(Column(traces->reachable, 2), ElementsAre(10, 10, 50, 50));
  // Below every RTT: each site is on its own.
  traces = MakeReachableTraces(tiny.topology, tiny.trace, 19);
  ASSERT_TRUE(traces.ok());
  EXPECT_THAT(Column(traces->reachable, 1), ElementsAre(10, 10, 300, 300));
  EXPECT_THAT(MakeReachableTraces(tiny.topology, tiny.trace, -1).status().message(),
              HasSubstr("max_rtt_ms: -1"));
}

// One-hour jobs with one hour of slack (window [t, t + 2), cut at the trace's
// end), at 30 ms. now runs at home: A 100, B (10 + 10 + 300 + 300) / 4 = 155,
// C 50 → Global (100 + 155 + 50) / 3. The oracle waits on the reachable
// series: A min(10,10), min(10,100), 100, 100 → 55; B and C 10, 10, 50, 50 →
// 30 → Global (55 + 30 + 30) / 3. With perfect forecasts carbonroute finds
// the same hours. At 19 ms nothing moves: waiting alone, B 10, 10, 300, 300
// → 155 → B's oracle = its now. A and C are flat.
TEST(SimulateBoth, HandComputedWaitingAndMoving) {
  const Tiny tiny = MakeTiny();
  TemporalOptions options;
  options.job_lengths_hours = {1};
  options.slacks_hours = {1};
  options.interruptible = {false};
  options.groups = {"Global"};
  options.threads = 1;
  const absl::StatusOr<std::vector<TemporalRow>> rows =
      SimulateBoth(tiny.topology, tiny.trace, {}, options, {30, 19});
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 6u);  // 2 limits × now, carbonroute, oracle
  EXPECT_EQ((*rows)[0].max_rtt_ms, 30);
  EXPECT_EQ((*rows)[0].policy, TemporalPolicy::kNow);
  EXPECT_THAT((*rows)[0].mean_grams_per_kwh, DoubleNear(305.0 / 3, 1e-9));
  EXPECT_EQ((*rows)[2].policy, TemporalPolicy::kOracle);
  EXPECT_THAT((*rows)[2].mean_grams_per_kwh, DoubleNear(115.0 / 3, 1e-9));
  EXPECT_THAT((*rows)[1].mean_grams_per_kwh, DoubleNear(115.0 / 3, 1e-9));  // carbonroute
  EXPECT_EQ((*rows)[5].max_rtt_ms, 19);
  EXPECT_THAT((*rows)[5].mean_grams_per_kwh, DoubleNear(305.0 / 3, 1e-9));
  EXPECT_THAT((*rows)[5].reduction_grams_per_kwh, DoubleNear(0, 1e-9));

  EXPECT_THAT(SimulateBoth(tiny.topology, tiny.trace, {}, options, {}).status().message(),
              HasSubstr("max_rtt_ms must not be empty"));
}

TEST(IntensityTraceFromColumns, SizesMustAgree) {
  EXPECT_FALSE(IntensityTrace::FromColumns(2022, {"A", "B"}, {{1, 2}}).ok());
  EXPECT_FALSE(IntensityTrace::FromColumns(2022, {"A", "B"}, {{1, 2}, {3}}).ok());
  const absl::StatusOr<IntensityTrace> trace =
      IntensityTrace::FromColumns(2022, {"A", "B"}, {{1, 2}, {3, 4}});
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(trace->hours(), 2u);
  EXPECT_EQ(trace->Value(1, 0), 3);
  EXPECT_EQ(trace->year(), 2022);
}

}  // namespace
}  // namespace carbonroute::simulator
