#include "collector/readiness.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "prometheus/registry.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_provider_server.h"
#include "test/testing/temp_dir.h"

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

// The real collector, ten locations behind a provider that accepts every
// connection and never answers, and an empty cache: alive all along, ready at
// the first poll's deadline while the first poll is still running.
TEST(Readiness, AHangingUpstreamNeitherKillsNorKeepsTheCollectorUnready) {
  testing::ScopedTempDir dir;
  testing::FakeProviderServer server;
  server.Route("/v3/carbon-intensity/latest", [](const testing::FakeRequest&) {
    testing::FakeResponse hang;
    hang.mode = testing::FakeResponse::Mode::kHang;
    return hang;
  });
  const std::string config = absl::StrCat(
      "listen_address: 127.0.0.1:0\n", "database: ", dir.File("readings.sqlite"), "\n",
      "poll: {first_poll_deadline: 2s, forecast_horizon: 0s}\n",
      "providers:\n"
      "  - {type: electricity_maps, token: test-token, timeout: 5s, base_url: \"",
      server.base_url(), "/v3\",\n", "     locations: [DE, FR, PL, ES, IT, NL, BE, AT, CH, DK]}\n");
  testing::CollectorProcess collector = testing::LaunchCollector(dir.path(), config);
  ASSERT_NE(collector.port, 0);
  int status = 0;
  // Polled, not slept: ready within the deadline (2 s), with a 60 s cap for a busy machine.
  for (int i = 0; i < 600; ++i) {
    testing::HttpGet(collector.port, "/readyz", &status);
    if (status == 200) break;
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_EQ(status, 200) << testing::HttpGet(collector.port, "/readyz");
  // The first poll is still under way (a 5 s timeout at each of ten locations: 50 s).
  const std::string health = testing::HttpGet(collector.port, "/healthz", &status);
  EXPECT_EQ(status, 503) << health;
  EXPECT_THAT(testing::HttpGet(collector.port, "/livez", &status), HasSubstr("ok"));
  EXPECT_EQ(status, 200);
  const std::string page = testing::HttpGet(collector.port, "/api/v1/status", &status);
  EXPECT_THAT(page, HasSubstr("/readyz"));
  // Its example links ask for a location it polls (the first, AT), not DE whatever it polls.
  EXPECT_THAT(page, HasSubstr("/api/v1/forecast?location=AT"));
}

}  // namespace
}  // namespace carbonroute::collector
