#include "base/time_weighted_mean.h"

#include <gtest/gtest.h>

namespace carbonroute {
namespace {

const absl::Time kMeanStart = absl::FromUnixSeconds(1'800'000'000);

struct TestPoint {
  absl::Time valid_from;
  absl::Time valid_to;
  double value = 0;
};

TestPoint Point(int from_hour, int to_hour, double value) {
  TestPoint record;
  record.valid_from = kMeanStart + absl::Hours(from_hour);
  record.valid_to = kMeanStart + absl::Hours(to_hour);
  record.value = value;
  return record;
}

TEST(TimeWeightedMean, WeighsEachPointByItsOverlap) {
  const std::vector<TestPoint> points = {Point(0, 1, 100), Point(1, 2, 200), Point(2, 3, 400)};
  // [0:30, 2:30): 30 min of 100, 60 min of 200, 30 min of 400 → (50 + 200 + 200) / 2 = 225.
  EXPECT_DOUBLE_EQ(
      *TimeWeightedMean(points, kMeanStart + absl::Minutes(30), kMeanStart + absl::Minutes(150)),
      225);
  EXPECT_DOUBLE_EQ(*TimeWeightedMean(points, kMeanStart, kMeanStart + absl::Hours(1)), 100);
}

TEST(TimeWeightedMean, PartialCoverageGivesNoMean) {
  const std::vector<TestPoint> points = {Point(0, 1, 100), Point(1, 2, 200)};
  EXPECT_EQ(TimeWeightedMean(points, kMeanStart, kMeanStart + absl::Hours(3)), std::nullopt);
  EXPECT_EQ(TimeWeightedMean(points, kMeanStart - absl::Minutes(1), kMeanStart + absl::Hours(1)),
            std::nullopt);
}

TEST(TimeWeightedMean, GapGivesNoMean) {
  const std::vector<TestPoint> points = {Point(0, 1, 100), Point(2, 3, 200)};
  EXPECT_EQ(TimeWeightedMean(points, kMeanStart, kMeanStart + absl::Hours(3)), std::nullopt);
}

TEST(TimeWeightedMean, EmptyWindowGivesNoMean) {
  EXPECT_EQ(TimeWeightedMean(std::vector<TestPoint>{Point(0, 1, 100)}, kMeanStart, kMeanStart),
            std::nullopt);
  EXPECT_EQ(TimeWeightedMean(std::vector<TestPoint>{}, kMeanStart, kMeanStart + absl::Hours(1)),
            std::nullopt);
}

}  // namespace
}  // namespace carbonroute
