#include "simulator/temporal_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "test/testing/status_matchers.h"

namespace carbonroute::simulator {
namespace {

using ::testing::DoubleNear;
using ::testing::HasSubstr;
using testing::StatusIs;

// One job's means, as the simulation asks: CarbonrouteWaiting::Create, then Means.
absl::StatusOr<std::vector<double>> CarbonrouteMeans(const std::vector<double>& hourly,
                                                     const std::vector<double>& forecast,
                                                     const TemporalJob& job, int horizon_hours) {
  absl::StatusOr<CarbonrouteWaiting> waiting =
      CarbonrouteWaiting::Create(hourly, forecast, job.length_hours, horizon_hours);
  if (!waiting.ok()) return waiting.status();
  return waiting->Means(job.slack_hours, job.interruptible);
}

TEST(TemporalPolicy, ForecastsAreTheTruthYesterdayOrTheTruthWithTheStatedError) {
  std::vector<double> x(50000);
  for (std::size_t h = 0; h < x.size(); ++h) x[h] = 100 + static_cast<double>(h % 97);
  EXPECT_EQ(ForecastSeries(x, *ParseSimulatedForecast("perfect")), x);
  const std::vector<double> yesterday = ForecastSeries(x, *ParseSimulatedForecast("persistence"));
  EXPECT_EQ(yesterday[30], x[6]);
  EXPECT_EQ(yesterday[5], x[0]);  // the first day: the first reading
  const std::vector<double> noisy = ForecastSeries(x, *ParseSimulatedForecast("noisy:10"));
  double error = 0;
  for (std::size_t h = 0; h < x.size(); ++h) error += std::abs(noisy[h] / x[h] - 1);
  EXPECT_THAT(100 * error / static_cast<double>(x.size()), DoubleNear(10, 0.2));  // the MAPE
  EXPECT_EQ(noisy, ForecastSeries(x, *ParseSimulatedForecast("noisy:10")));       // seeded
  EXPECT_EQ(ParseSimulatedForecast("noisy:5")->ToString(), "noisy:5");
  for (const char* bad : {"psychic", "noisy:", "noisy:-1", "noisy:101", "noisy:ten"}) {
    EXPECT_THAT(ParseSimulatedForecast(bad),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(bad)));
  }
}

TEST(TemporalPolicy, WithTheWholeWindowInViewAndAPerfectForecastItIsTheOracle) {
  std::mt19937 random(26);
  std::uniform_real_distribution<double> value(0, 900);
  std::vector<double> x(500);
  for (double& v : x) v = value(random);
  for (const TemporalJob job : {TemporalJob{1, 10, false}, TemporalJob{3, 20, false},
                                TemporalJob{3, 20, true}, TemporalJob{8, 40, true}}) {
    const int horizon = job.length_hours + job.slack_hours;  // the deadline always in view
    const std::vector<double> ours = *CarbonrouteMeans(x, x, job, horizon);
    const std::vector<double> oracle = *OracleMeans(x, job);
    ASSERT_EQ(ours.size(), oracle.size());
    for (std::size_t t = 0; t < ours.size(); ++t) {
      ASSERT_THAT(ours[t], DoubleNear(oracle[t], 1e-9)) << job.length_hours << " " << t;
    }
  }
}

TEST(TemporalPolicy, ItKnowsOnlyWhatTheForecastReaches) {
  // Flat 5 with one clean hour (0) at 190; a 1-hour job arriving at 150 may wait 45 h.
  std::vector<double> x(200, 5);
  x[190] = 0;
  for (const bool interruptible : {false, true}) {
    const TemporalJob job{1, 45, interruptible};
    // 24 h ahead, hour 190 is out of sight: nothing beats now.
    EXPECT_EQ((*CarbonrouteMeans(x, x, job, 24))[150], 5) << interruptible;
    // 48 h ahead it is in sight, and taken.
    EXPECT_EQ((*CarbonrouteMeans(x, x, job, 48))[150], 0) << interruptible;
  }
}

TEST(TemporalPolicy, MistakesNameTheValue) {
  const std::vector<double> x = {1, 2, 3};
  EXPECT_THAT(CarbonrouteMeans(x, x, {1, 1, false}, 0),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at least 1 hour, got 0")));
  EXPECT_THAT(CarbonrouteMeans(x, {1, 2}, {1, 1, false}, 24),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("every hour")));
  EXPECT_THAT(CarbonrouteMeans(x, x, {4, 1, false}, 24),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("does not fit")));
}

}  // namespace
}  // namespace carbonroute::simulator
