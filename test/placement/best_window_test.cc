#include "placement/best_window.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/testing/status_matchers.h"

namespace carbonroute::placement {
namespace {

using testing::IsOk;
using testing::StatusIs;

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

std::vector<ForecastPoint> Hourly(std::vector<double> values) {
  std::vector<ForecastPoint> points;
  for (std::size_t i = 0; i < values.size(); ++i) {
    points.push_back({kT0 + absl::Hours(i), kT0 + absl::Hours(i + 1), values[i]});
  }
  return points;
}

TEST(FindBestWindow, PicksTheCleanestStartBeforeTheDeadline) {
  const auto points = Hourly({400, 380, 200, 100, 120, 300, 50, 50});
  absl::StatusOr<BestWindow> best =
      FindBestWindow(points, kT0 + absl::Minutes(30), absl::Hours(2), kT0 + absl::Hours(6));
  ASSERT_THAT(best, IsOk());
  EXPECT_EQ(best->start, kT0 + absl::Hours(3));  // [3h, 5h): 100, 120 → 110
  EXPECT_DOUBLE_EQ(best->mean_grams_per_kwh, 110);
  EXPECT_DOUBLE_EQ(*best->mean_if_started_now, (0.5 * 400 + 380 + 0.5 * 200) / 2);  // 340
  EXPECT_NEAR(*best->saving_fraction, (340.0 - 110) / 340, 1e-12);
}

TEST(FindBestWindow, StartingNowCanBeBestAndTiesGoEarliest) {
  absl::StatusOr<BestWindow> best =
      FindBestWindow(Hourly({10, 10, 10, 10}), kT0, absl::Hours(1), kT0 + absl::Hours(4));
  ASSERT_THAT(best, IsOk());
  EXPECT_EQ(best->start, kT0);
  EXPECT_DOUBLE_EQ(*best->saving_fraction, 0);
}

TEST(FindBestWindow, Errors) {
  EXPECT_THAT(FindBestWindow(Hourly({1}), kT0, absl::ZeroDuration(), kT0 + absl::Hours(1)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::HasSubstr("duration must be positive")));
  EXPECT_THAT(FindBestWindow(Hourly({1, 2}), kT0, absl::Hours(2), kT0 + absl::Hours(1)),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("leaves no room")));
  EXPECT_THAT(FindBestWindow(Hourly({1, 2}), kT0, absl::Hours(3), kT0 + absl::Hours(5)),
              StatusIs(absl::StatusCode::kNotFound, ::testing::HasSubstr("covers no full")));
}

}  // namespace
}  // namespace carbonroute::placement
