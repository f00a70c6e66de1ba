// Issue 25: every /metrics page is one snapshot of every peer's series, even
// while the prober records results as fast as it can.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "absl/strings/str_cat.h"
#include "exporter/collector_metrics.h"
#include "exporter/metrics_page.h"
#include "net/http_server.h"
#include "prober/prober.h"
#include "prometheus/registry.h"
#include "test/exporter/page_checks.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_clock.h"
#include "test/testing/scripted_transport.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::prober {
namespace {

using testing::IsOk;

TEST(ScrapeConsistency, EveryPageUnderARunningProberIsOneSnapshot) {
  // The scripted transport jumps the fake clock to each answer, so the loop
  // records results back to back: about a simulated second of 100 peers per
  // real millisecond, far more than a real prober's rate.
  testing::FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  testing::ScriptedTransport transport(clock);
  std::vector<PeerConfig> peers;
  for (int i = 0; i < 100; ++i) {
    PeerConfig& peer = peers.emplace_back();
    peer.name = absl::StrCat("peer-", i);
    peer.address = absl::StrCat("10.0.0.", i + 1);
    testing::ScriptedTransport::Behaviour& behaviour = transport.behaviour[peer.address];
    behaviour.delay = absl::Microseconds(100 + 97 * i);
    behaviour.drop_every_of_ten = i % 4;  // 0–30 % lost
    behaviour.silent = i % 25 == 24;
  }
  ProbeConfig config;
  config.interval = absl::Seconds(1);
  config.timeout = absl::Milliseconds(500);
  auto registry = std::make_shared<prometheus::Registry>();
  exporter::CollectorMetrics metrics(*registry);
  metrics.SetProbeHistogramMaxPeers(100);
  ProberOptions prober_options;
  prober_options.seed = 7;
  Prober prober("node-a", config, transport, clock, metrics, std::move(prober_options));
  prober.SetTargets(peers);

  net::HttpServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.routes["/metrics"] = exporter::MetricsPageHandler(registry, {}, {metrics.peer_series()});
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server = net::HttpServer::Start(options);
  ASSERT_THAT(server, IsOk());

  std::thread loop([&] { prober.Run(); });
  uint64_t first_sent = 0, last_sent = 0;
  for (int scrape = 0; scrape < 60; ++scrape) {
    int status = 0;
    const std::string page = testing::HttpGet((*server)->port(), "/metrics", &status);
    ASSERT_EQ(status, 200);
    ASSERT_EQ(testing::CheckProbePage(page), "") << "page " << scrape;
    last_sent = testing::SumOf(page, "carbonroute_probe_sent_total");
    if (scrape == 0) first_sent = last_sent;
  }
  prober.Stop();
  loop.join();
  // The pages were taken while the prober ran, and they carry its histograms.
  EXPECT_GT(last_sent, first_sent);
  const std::string page = testing::HttpGet((*server)->port(), "/metrics");
  EXPECT_THAT(page, ::testing::HasSubstr("carbonroute_probe_rtt_seconds_count{source=\"node-a\""));
  EXPECT_LT(testing::SumOf(page, "carbonroute_probe_received_total"),
            testing::SumOf(page, "carbonroute_probe_sent_total"));
}

}  // namespace
}  // namespace carbonroute::prober
