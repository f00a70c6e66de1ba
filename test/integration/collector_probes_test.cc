#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_provider_server.h"
#include "test/testing/temp_dir.h"

// The collector's probes as Kubernetes calls them (collector/readiness.h), on the real
// binary (an integration test: the sanitizer-only builds do not build the binary).
namespace carbonroute {
namespace {

using ::testing::HasSubstr;

// The real collector, ten locations behind a provider that accepts every
// connection and never answers, and an empty cache: alive all along, ready at
// the first poll's deadline while the first poll is still running.
TEST(CollectorProbes, AHangingUpstreamNeitherKillsNorKeepsTheCollectorUnready) {
  testing::ScopedTempDir dir;
  testing::FakeProviderServer server;
  server.Route("/v3/carbon-intensity/latest", [](const testing::FakeRequest&) {
    testing::FakeResponse hang;
    hang.mode = testing::FakeResponse::Mode::kHang;
    return hang;
  });
  const std::string config = absl::StrCat(
      "listen_address: 127.0.0.1:0\n", "database: ", dir.File("readings.sqlite"), "\n",
      "node: {name: probes-node}\npoll: {first_poll_deadline: 2s, forecast_horizon: 0s}\n",
      "providers:\n"
      "  - {type: electricity_maps, token: test-token, timeout: 30s, base_url: \"",
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
  // Four locations are asked at once (poll.concurrent_locations): four requests hang
  // together well before the first one's 30 s timeout. One location at a time, the
  // fake would see one request in those 30 s.
  for (int i = 0; i < 200 && server.Count("/v3/carbon-intensity/latest") < 4; ++i) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_EQ(server.Count("/v3/carbon-intensity/latest"), 4);
  // The first poll is still under way (a 30 s timeout for each round of four locations).
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
}  // namespace carbonroute
