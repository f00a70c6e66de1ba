// The Carbon Aware SDK's arithmetic, on the SDK's own documented examples
// (EmissionsDataExtensions.cs remarks) and by hand.
#include "carbon_aware/emissions_math.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/testing/status_matchers.h"

namespace carbonroute::carbon_aware {
namespace {

using ::carbonroute::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const absl::Time kT0 = absl::FromUnixSeconds(1661263200);  // 2022-08-23T14:00:00Z

// Points of `step` each from kT0, rated `ratings` in turn.
std::vector<EmissionsPoint> Series(std::vector<double> ratings, absl::Duration step) {
  std::vector<EmissionsPoint> points;
  for (std::size_t i = 0; i < ratings.size(); ++i) {
    points.push_back({"eastus", kT0 + step * static_cast<int64_t>(i), step, ratings[i]});
  }
  return points;
}

std::vector<double> Ratings(const std::vector<EmissionsPoint>& points) {
  std::vector<double> ratings;
  for (const EmissionsPoint& point : points) ratings.push_back(point.rating);
  return ratings;
}

TEST(AverageOverPeriod, WeighsEachPointByTheShareOfThePeriodItCovers) {
  // The SDK's example: (01:00, 30), (02:00, 100), (03:00, 50), over 01:30–03:30.
  const std::vector<EmissionsPoint> points = Series({30, 100, 50}, absl::Hours(1));
  absl::StatusOr<double> mean =
      AverageOverPeriod(points, kT0 + absl::Minutes(30), kT0 + absl::Minutes(150));
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_DOUBLE_EQ(*mean, 30.0 / 4 + 100.0 / 2 + 50.0 / 4);
  EXPECT_DOUBLE_EQ(*AverageOverPeriod(points, kT0, kT0 + absl::Hours(3)), 60);
}

TEST(AverageOverPeriod, RefusesAGapAndAPeriodTheDataDoesNotCover) {
  std::vector<EmissionsPoint> gap = Series({10, 20}, absl::Hours(1));
  gap[1].time += absl::Minutes(5);
  EXPECT_THAT(AverageOverPeriod(gap, kT0, kT0 + absl::Hours(1)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("requires continuous chronological data")));
  EXPECT_THAT(AverageOverPeriod(Series({10, 20}, absl::Hours(1)), kT0, kT0 + absl::Hours(3)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Period out of range")));
}

TEST(RollingAverage, IsTheSdksOwnExamples) {
  const absl::Duration five = absl::Minutes(5);
  // [10, 20, 30, 40, 5] in 5-minute points, a 10-minute window: [15, 25, 35, 22.5].
  absl::StatusOr<std::vector<EmissionsPoint>> averaged =
      RollingAverage(Series({10, 20, 30, 40, 5}, five), absl::Minutes(10), kT0, std::nullopt);
  ASSERT_TRUE(averaged.ok()) << averaged.status();
  EXPECT_THAT(Ratings(*averaged), ElementsAre(15, 25, 35, 22.5));
  EXPECT_EQ((*averaged)[3].time, kT0 + absl::Minutes(15));
  EXPECT_EQ((*averaged)[3].duration, absl::Minutes(10));
  EXPECT_THAT(Ratings(*RollingAverage(Series({5, 55, 10, 10, 10}, five), absl::Minutes(10), kT0,
                                      std::nullopt)),
              ElementsAre(30, 32.5, 10, 10));
  EXPECT_THAT(Ratings(*RollingAverage(Series({12, 11, 10, 12, 13}, five), absl::Minutes(10), kT0,
                                      std::nullopt)),
              ElementsAre(11.5, 10.5, 11, 12.5));
}

TEST(RollingAverage, StopsAtTheEndAskedForAndWithoutAWindowKeepsThePoints) {
  const std::vector<EmissionsPoint> points = Series({10, 20, 30, 40}, absl::Hours(1));
  EXPECT_THAT(Ratings(*RollingAverage(points, absl::Hours(2), kT0, kT0 + absl::Hours(3))),
              ElementsAre(15, 25));
  EXPECT_EQ(*RollingAverage(points, absl::ZeroDuration(), kT0, std::nullopt), points);
}

TEST(FilterAndOptimal, KeepThePointsInRangeAndEveryLowest) {
  const std::vector<EmissionsPoint> points = Series({30, 10, 20, 10}, absl::Hours(1));
  const std::vector<EmissionsPoint> kept =
      FilterByDuration(points, kT0 + absl::Hours(1), kT0 + absl::Hours(2));
  EXPECT_THAT(Ratings(kept), ElementsAre(10, 20));  // the third starts at the end: kept, as the SDK
  const std::vector<EmissionsPoint> best = OptimalPoints(points);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].time, kT0 + absl::Hours(1));
  EXPECT_EQ(best[1].time, kT0 + absl::Hours(3));
  EXPECT_TRUE(OptimalPoints({}).empty());
}

}  // namespace
}  // namespace carbonroute::carbon_aware
