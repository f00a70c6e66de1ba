#include "prober/rtt_statistics.h"

#include <gtest/gtest.h>

namespace carbonroute::prober {
namespace {

const absl::Time kStatsStart = absl::FromUnixSeconds(1'800'000'000);

TEST(RttStatistics, FirstSampleSetsTheEstimators) {
  RttStatistics stats;
  EXPECT_EQ(stats.smoothed(), std::nullopt);
  EXPECT_EQ(stats.loss_ratio(), std::nullopt);
  stats.RecordReply(kStatsStart, absl::Milliseconds(40));
  EXPECT_EQ(stats.last(), absl::Milliseconds(40));
  EXPECT_EQ(stats.min(), absl::Milliseconds(40));
  EXPECT_EQ(stats.smoothed(), absl::Milliseconds(40));
  EXPECT_EQ(stats.loss_ratio(), 0.0);
}

TEST(RttStatistics, SmoothedRttFollowsRfc6298Gain) {
  RttStatistics stats;
  stats.RecordReply(kStatsStart, absl::Milliseconds(40));
  stats.RecordReply(kStatsStart + absl::Seconds(1), absl::Milliseconds(48));
  // srtt = 7/8·40 + 1/8·48 = 41 ms.
  EXPECT_EQ(stats.smoothed(), absl::Milliseconds(41));
  EXPECT_EQ(stats.last(), absl::Milliseconds(48));
  EXPECT_EQ(stats.min(), absl::Milliseconds(40));
}

TEST(RttStatistics, ConvergesToASteadyRtt) {
  RttStatistics stats;
  stats.RecordReply(kStatsStart, absl::Milliseconds(120));
  for (int i = 1; i <= 100; ++i)
    stats.RecordReply(kStatsStart + absl::Seconds(i), absl::Milliseconds(5));
  EXPECT_NEAR(absl::ToDoubleMilliseconds(*stats.smoothed()), 5,
              0.01);  // (7/8)^100 · 115 ms ≈ 0.0002 ms
  EXPECT_EQ(stats.min(), absl::Milliseconds(5));
}

TEST(RttStatistics, LossIsOverTheSlidingWindow) {
  RttStatistics stats(/*window=*/10);
  for (int i = 0; i < 10; ++i) {
    if (i % 10 < 3) {
      stats.RecordLoss(kStatsStart + absl::Seconds(i));
    } else {
      stats.RecordReply(kStatsStart + absl::Seconds(i), absl::Milliseconds(5));
    }
  }
  EXPECT_DOUBLE_EQ(*stats.loss_ratio(), 0.3);
  for (int i = 10; i < 20; ++i)
    stats.RecordReply(kStatsStart + absl::Seconds(i), absl::Milliseconds(5));
  EXPECT_DOUBLE_EQ(*stats.loss_ratio(), 0.0);  // the losses slid out
  EXPECT_EQ(stats.sent(), 20u);
  EXPECT_EQ(stats.received(), 17u);
}

TEST(RttStatistics, SilentTargetGoesToFullLossAndStaleRtt) {
  RttStatistics stats(/*window=*/5);
  stats.RecordReply(kStatsStart, absl::Milliseconds(5));
  EXPECT_TRUE(stats.Fresh(kStatsStart + absl::Seconds(2), absl::Seconds(3)));
  for (int i = 1; i <= 5; ++i) stats.RecordLoss(kStatsStart + absl::Seconds(i));
  EXPECT_DOUBLE_EQ(*stats.loss_ratio(), 1.0);
  EXPECT_FALSE(stats.Fresh(kStatsStart + absl::Seconds(6), absl::Seconds(3)));
  EXPECT_EQ(stats.smoothed(), absl::Milliseconds(5));  // kept, but not fresh: not exported
}

}  // namespace
}  // namespace carbonroute::prober
