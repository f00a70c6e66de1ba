#include "simulator/temporal_shift.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "contract/intensity_trace.h"
#include "test/testing/build_paths.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::simulator {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

// The study's way, by brute force: every window sorted (interruptible) or every block summed.
std::vector<double> BruteForceOracle(const std::vector<double>& x, const TemporalJob& job) {
  const std::size_t n = x.size(), length = static_cast<std::size_t>(job.length_hours);
  std::vector<double> means;
  for (std::size_t t = 0; t + length <= n; ++t) {
    const std::size_t end = std::min(t + static_cast<std::size_t>(job.slack_hours) + length, n);
    double best = 0;
    if (job.interruptible) {
      std::vector<double> window(x.begin() + static_cast<long>(t),
                                 x.begin() + static_cast<long>(end));
      std::sort(window.begin(), window.end());
      for (std::size_t i = 0; i < length; ++i) best += window[i];
    } else {
      best = 1e300;
      for (std::size_t s = t; s + length <= end; ++s) {
        double sum = 0;
        for (std::size_t h = s; h < s + length; ++h) sum += x[h];
        best = std::min(best, sum);
      }
    }
    means.push_back(best / static_cast<double>(length));
  }
  return means;
}

TEST(TemporalShift, HandComputedSmallCase) {
  const std::vector<double> x = {5, 1, 4, 2, 8, 3};
  // Length 2, slack 2: arrivals 0–4, windows [t, min(t + 4, 6)).
  EXPECT_THAT(RunNowMeans(x, {2, 2, false}), IsOk());
  EXPECT_THAT(*RunNowMeans(x, {2, 2, false}), ElementsAre(3, 2.5, 3, 5, 5.5));
  // Interruptible: the two smallest of {5,1,4,2}, {1,4,2,8}, {4,2,8,3}, {2,8,3}, {8,3}.
  EXPECT_THAT(*OracleMeans(x, {2, 2, true}), ElementsAre(1.5, 1.5, 2.5, 2.5, 5.5));
  // Not interruptible: block sums 6, 5, 6, 10, 11; the smallest starting in [t, min(t + 2, 4)].
  EXPECT_THAT(*OracleMeans(x, {2, 2, false}), ElementsAre(2.5, 2.5, 3, 5, 5.5));
  // A year's slack: the rest of the series.
  EXPECT_THAT(*OracleMeans(x, {2, 8760, true}), ElementsAre(1.5, 1.5, 2.5, 2.5, 5.5));
  EXPECT_THAT(*OracleMeans(x, {1, 8760, true}), ElementsAre(1, 1, 2, 2, 3, 3));
}

TEST(TemporalShift, AgreesWithSortingEveryWindowOnRandomSeries) {
  std::mt19937 random(25);
  std::uniform_real_distribution<double> value(0, 900);
  for (int round = 0; round < 40; ++round) {
    std::vector<double> x(150 + round);
    for (double& v : x) v = value(random);
    for (const TemporalJob job :
         {TemporalJob{1, 0, true}, TemporalJob{6, 24, true}, TemporalJob{6, 24, false},
          TemporalJob{12, 1000, true}, TemporalJob{24, 7, false}, TemporalJob{100, 40, true},
          TemporalJob{150, 3, false}}) {
      const std::vector<double> expected = BruteForceOracle(x, job);
      absl::StatusOr<std::vector<double>> got = OracleMeans(x, job);
      ASSERT_THAT(got, IsOk());
      ASSERT_EQ(got->size(), expected.size());
      for (std::size_t t = 0; t < expected.size(); ++t) {
        ASSERT_THAT((*got)[t], DoubleNear(expected[t], 1e-9))
            << "round " << round << ", length " << job.length_hours << ", slack " << job.slack_hours
            << ", interruptible " << job.interruptible << ", arrival " << t;
      }
    }
  }
}

TEST(TemporalShift, InvariantsOverTheShippedYear) {
  absl::StatusOr<IntensityTrace> trace = IntensityTrace::Load(
      std::string(CARBONROUTE_SOURCE_DIR) + "/data/carbon-intensity-2022-hourly.csv");
  ASSERT_THAT(trace, IsOk());
  for (const char* zone : {"DE", "FR", "US-CAL-CISO", "AU-NSW"}) {
    const std::optional<std::size_t> z = trace->ZoneIndex(zone);
    ASSERT_TRUE(z.has_value()) << zone;
    std::vector<double> x(trace->hours());
    for (std::size_t h = 0; h < x.size(); ++h) x[h] = *trace->Value(*z, h);
    for (const int length : {1, 24, 168}) {
      const std::vector<double> now = *RunNowMeans(x, {length, 0, false});
      std::vector<double> previous_slack = now;  // more slack never costs more
      for (const int slack : {0, 24, 168, 720, 8760}) {
        const std::vector<double> whole = *OracleMeans(x, {length, slack, false});
        const std::vector<double> split = *OracleMeans(x, {length, slack, true});
        ASSERT_EQ(whole.size(), now.size());
        for (std::size_t t = 0; t < now.size(); ++t) {
          const double eps = 1e-9 * now[t] + 1e-9;
          ASSERT_LE(split[t], whole[t] + eps) << zone << " " << length << " " << slack << " " << t;
          ASSERT_LE(whole[t], now[t] + eps) << zone << " " << length << " " << slack << " " << t;
          ASSERT_LE(whole[t], previous_slack[t] + eps);
          if (slack == 0) {
            ASSERT_NEAR(whole[t], now[t], eps);
            ASSERT_NEAR(split[t], now[t], eps);
          }
        }
        previous_slack = whole;
      }
    }
  }
}

TEST(TemporalShift, MistakesNameTheValue) {
  const std::vector<double> x = {1, 2, 3};
  EXPECT_THAT(OracleMeans(x, {0, 1, true}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at least 1 hour, got 0")));
  EXPECT_THAT(RunNowMeans(x, {1, -2, false}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("got -2 hours")));
  EXPECT_THAT(OracleMeans(x, {4, 0, false}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a job of 4 hours does not fit in a series of 3 hours")));
}

}  // namespace
}  // namespace carbonroute::simulator
