#include "collector/readiness.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "prometheus/registry.h"

namespace carbonroute::collector {
namespace {

using ::testing::HasSubstr;

const absl::Time kStart = absl::FromUnixSeconds(1'795'600'000);

struct ReadinessHarness {
  prometheus::Registry registry;
  exporter::CollectorMetrics metrics{registry};
  ProgressMonitor progress;
  Readiness readiness{progress, metrics, kStart, absl::Seconds(30)};
};

TEST(Readiness, ReadyAtTheDeadlineWithNothingAndThenForGood) {
  ReadinessHarness h;
  ProbeAnswer answer = h.readiness.Ready(kStart + absl::Seconds(29));
  EXPECT_FALSE(answer.ok);
  EXPECT_THAT(answer.why, HasSubstr("first poll under way (29s of at most 30s)"));
  EXPECT_TRUE(h.readiness.Ready(kStart + absl::Seconds(30)).ok);
  // Latched: asked again "before" (a clock set back), still ready.
  EXPECT_TRUE(h.readiness.Ready(kStart).ok);
  EXPECT_FALSE(h.readiness.first_poll_done());
}

TEST(Readiness, ACachedReadingExportedOrTheFirstPollsEndMakesItReadyAtOnce) {
  ReadinessHarness exported;
  EXPECT_FALSE(exported.readiness.Ready(kStart).ok);
  exported.metrics.SetIntensity(
      {"em", "DE", EmissionsType::kAverage},
      {.value = 300, .valid_to = kStart + absl::Hours(1), .fetched_at = kStart - absl::Minutes(10)},
      kStart);
  EXPECT_TRUE(exported.readiness.Ready(kStart).ok);
  // Removing the series later (an outage past poll.grace) does not make it unready.
  exported.metrics.ClearIntensity({"em", "DE", EmissionsType::kAverage});
  EXPECT_TRUE(exported.readiness.Ready(kStart + absl::Seconds(1)).ok);

  ReadinessHarness polled;
  polled.readiness.FirstPollDone();
  EXPECT_TRUE(polled.readiness.Ready(kStart).ok);
  EXPECT_TRUE(polled.readiness.first_poll_done());
}

TEST(Readiness, LiveWhileEveryLoopKeepsItsPromiseAndNamesTheStuckOne) {
  ReadinessHarness h;
  EXPECT_TRUE(h.readiness.Live(kStart).ok);  // no loop yet
  const ProgressMonitor::LoopId poll = h.progress.Register("poll loop of em");
  h.progress.Expect(poll, kStart + absl::Minutes(2));
  EXPECT_TRUE(h.readiness.Live(kStart + absl::Minutes(1)).ok);
  const ProbeAnswer stuck = h.readiness.Live(kStart + absl::Minutes(3));
  EXPECT_FALSE(stuck.ok);
  EXPECT_THAT(stuck.why, HasSubstr("stuck: poll loop of em (1m late)"));
  h.progress.Expect(poll, kStart + absl::Minutes(5));  // it turned again
  EXPECT_TRUE(h.readiness.Live(kStart + absl::Minutes(3)).ok);
}

}  // namespace
}  // namespace carbonroute::collector
