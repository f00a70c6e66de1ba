#include "prober/prober.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netdb.h>

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "exporter/metrics_page.h"
#include "prometheus/registry.h"
#include "test/testing/fake_clock.h"
#include "test/testing/metrics_scrape.h"
#include "test/testing/probe_recorder.h"
#include "test/testing/scripted_transport.h"

namespace carbonroute::prober {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

using testing::Endpoint;
using testing::ScriptedTransport;

class ProberTest : public ::testing::Test {
 protected:
  ProberTest() {
    config_.interval = absl::Seconds(1);
    config_.timeout = absl::Seconds(1);
    config_.window = 20;
  }

  std::string Scrape() { return testing::ScrapeMetricsPage(registry_, {metrics_.peer_series()}); }

  std::map<std::string, testing::ProbeResult> last_;
  testing::ProbeRecorder recorder_;
  ProbeConfig config_;
  testing::FakeClock clock_{kStart};
  ScriptedTransport transport_{clock_};
  prometheus::Registry registry_;
  exporter::CollectorMetrics metrics_{registry_};
};

TEST_F(ProberTest, SmoothedRttLossAndMetrics) {
  transport_.behaviour["10.0.0.1"].delay = absl::Milliseconds(5);
  transport_.behaviour["10.0.0.2"].delay = absl::Milliseconds(40);
  transport_.behaviour["10.0.0.2"].drop_every_of_ten = 3;  // 30 %
  Prober prober("node-a", config_, transport_, clock_, metrics_, recorder_.Options());
  prober.SetTargets({testing::Peer("node-b", "10.0.0.1"), testing::Peer("node-c", "10.0.0.2"),
                     testing::Peer("declared-only", "")});
  last_ = recorder_.RunUntil(prober, {"node-b", "node-c"}, 40);
  EXPECT_EQ(last_["node-b"].smoothed, absl::Milliseconds(5));
  EXPECT_EQ(last_["node-b"].loss, 0.0);
  EXPECT_EQ(last_["node-c"].smoothed, absl::Milliseconds(40));
  EXPECT_DOUBLE_EQ(last_["node-c"].loss, 0.3);  // 6 of the last 20
  const std::string page = Scrape();
  EXPECT_THAT(
      page,
      HasSubstr(
          R"(carbonroute_rtt_seconds{method="measured",source="node-a",target="node-b"} 0.005)"));
  EXPECT_THAT(page,
              HasSubstr(R"(carbonroute_probe_loss_ratio{source="node-a",target="node-c"} 0.3)"));
  EXPECT_THAT(page,
              HasSubstr(R"(carbonroute_probe_sent_total{source="node-a",target="node-b"} 40)"));
  EXPECT_THAT(page,
              HasSubstr(R"(carbonroute_probe_received_total{source="node-a",target="node-c"} 28)"));
  EXPECT_THAT(
      page,
      HasSubstr(
          R"(carbonroute_probe_rtt_seconds_bucket{source="node-a",target="node-b",le="5e-05"} 0)"));
  EXPECT_THAT(
      page,
      HasSubstr(
          R"(carbonroute_probe_rtt_seconds_bucket{source="node-a",target="node-b",le="0.005"} 40)"));
  EXPECT_THAT(page, Not(HasSubstr("declared-only")));  // no address: not probed
}

TEST_F(ProberTest, LateRepliesAreLossAndASilentTargetGoesStale) {
  transport_.behaviour["10.0.0.1"].delay = absl::Milliseconds(1500);  // after the 1 s timeout
  transport_.behaviour["10.0.0.2"].silent = true;
  transport_.behaviour["10.0.0.3"].unreachable = true;
  Prober prober("node-a", config_, transport_, clock_, metrics_, recorder_.Options());
  prober.SetTargets({testing::Peer("late", "10.0.0.1"), testing::Peer("silent", "10.0.0.2"),
                     testing::Peer("unreachable", "10.0.0.3")});
  last_ = recorder_.RunUntil(prober, {"late", "silent", "unreachable"}, 25);
  for (const char* name : {"late", "silent", "unreachable"}) {
    EXPECT_EQ(last_[name].loss, 1.0) << name;
    EXPECT_EQ(last_[name].received, 0u) << name;
    EXPECT_FALSE(last_[name].fresh) << name;
  }
  EXPECT_GE(transport_.cancels, 40);  // the late and silent probes were given up
  EXPECT_THAT(Scrape(), Not(HasSubstr("carbonroute_rtt_seconds{")));
}

// A busy node: the SYN-ACK came in 2 ms but the prober got a CPU only 1.5 s
// later, past the 1 s timeout. The kernel's sample is the RTT, and no loss.
TEST_F(ProberTest, AnAnswerSeenLateCarryingTheKernelsRttIsThatRttAndNoLoss) {
  transport_.behaviour["10.0.0.1"].delay = absl::Milliseconds(2);
  transport_.behaviour["10.0.0.1"].seen_late_with_kernel_rtt = absl::Milliseconds(1500);
  transport_.behaviour["10.0.0.2"].delay = absl::Milliseconds(1500);  // the network's own delay
  Prober prober("node-a", config_, transport_, clock_, metrics_, recorder_.Options());
  prober.SetTargets({testing::Peer("starved", "10.0.0.1"), testing::Peer("late", "10.0.0.2")});
  last_ = recorder_.RunUntil(prober, {"starved", "late"}, 20);
  EXPECT_EQ(last_["starved"].loss, 0.0);
  EXPECT_EQ(last_["starved"].smoothed, absl::Milliseconds(2));
  EXPECT_EQ(last_["late"].loss, 1.0);
}

TEST_F(ProberTest, ATargetThatStopsAnsweringIsNoLongerFresh) {
  transport_.behaviour["10.0.0.1"].delay = absl::Milliseconds(5);
  Prober prober("node-a", config_, transport_, clock_, metrics_, recorder_.Options());
  prober.SetTargets({testing::Peer("b", "10.0.0.1")});
  last_ = recorder_.RunUntil(prober, {"b"}, 10);
  EXPECT_TRUE(last_["b"].fresh);
  EXPECT_THAT(
      Scrape(),
      HasSubstr(R"(carbonroute_rtt_seconds{method="measured",source="node-a",target="b"})"));
  transport_.behaviour["10.0.0.1"].silent = true;
  last_ = recorder_.RunUntil(prober, {"b"}, 20);  // stale_after = 5 × 1 s + 1 s
  EXPECT_FALSE(last_["b"].fresh);
  EXPECT_DOUBLE_EQ(last_["b"].loss, 1.0);
  EXPECT_THAT(Scrape(), Not(HasSubstr("carbonroute_rtt_seconds{")));
  EXPECT_THAT(Scrape(), HasSubstr(R"(carbonroute_probe_loss_ratio{source="node-a",target="b"} 1)"));
}

TEST_F(ProberTest, RemovedTargetHasItsSeriesDeleted) {
  Prober prober("node-a", config_, transport_, clock_, metrics_, recorder_.Options());
  prober.SetTargets({testing::Peer("b", "10.0.0.1"), testing::Peer("c", "10.0.0.2")});
  last_ = recorder_.RunUntil(prober, {"b", "c"}, 3);
  EXPECT_THAT(Scrape(), HasSubstr(R"(target="c")"));
  prober.SetTargets({testing::Peer("b", "10.0.0.1")});
  last_ = recorder_.RunUntil(prober, {"b"}, 6);
  const std::string page = Scrape();
  EXPECT_THAT(page, HasSubstr(R"(target="b")"));
  EXPECT_THAT(page, Not(HasSubstr(R"(target="c")")));
}

TEST_F(ProberTest, ZoneRttIsTheMedianOfTheFreshPeersOfEachZone) {
  transport_.behaviour["10.0.0.1"].delay = absl::Milliseconds(2);
  transport_.behaviour["10.0.0.2"].delay = absl::Milliseconds(4);
  transport_.behaviour["10.0.0.3"].delay = absl::Milliseconds(30);
  transport_.behaviour["10.0.0.4"].delay = absl::Milliseconds(31);
  transport_.behaviour["10.0.0.5"].delay = absl::Milliseconds(90);
  Prober prober("node-a", config_, transport_, clock_, metrics_, recorder_.Options());
  auto in_zone = [](PeerConfig peer, const std::string& zone) {
    peer.zone = zone;
    return peer;
  };
  prober.SetSourceZone("eu-1a");
  prober.SetTargets({in_zone(testing::Peer("b", "10.0.0.1"), "eu-1a"),
                     in_zone(testing::Peer("c", "10.0.0.2"), "eu-1a"),
                     in_zone(testing::Peer("d", "10.0.0.3"), "us-1a"),
                     in_zone(testing::Peer("e", "10.0.0.4"), "us-1a"),
                     in_zone(testing::Peer("f", "10.0.0.5"), "us-1a"),
                     testing::Peer("no-zone", "10.0.0.6")});
  last_ = recorder_.RunUntil(prober, {"b", "c", "d", "e", "f"}, 10);
  std::string page = Scrape();
  EXPECT_THAT(
      page,
      HasSubstr(R"(carbonroute_zone_rtt_seconds{source_zone="eu-1a",target_zone="eu-1a"} 0.003)"));
  EXPECT_THAT(
      page,
      HasSubstr(R"(carbonroute_zone_rtt_seconds{source_zone="eu-1a",target_zone="us-1a"} 0.031)"));
  EXPECT_THAT(page, Not(HasSubstr(R"(target_zone="")")));

  // A zone whose peers all fall silent loses its series.
  for (const char* address : {"10.0.0.3", "10.0.0.4", "10.0.0.5"}) {
    transport_.behaviour[address].silent = true;
  }
  last_ = recorder_.RunUntil(prober, {"d"}, 30);
  page = Scrape();
  EXPECT_THAT(page, Not(HasSubstr(R"(target_zone="us-1a")")));
  EXPECT_THAT(page, HasSubstr(R"(target_zone="eu-1a")"));
}

TEST_F(ProberTest, HostnamesAreResolvedAgainEveryResolveInterval) {
  config_.resolve_interval = absl::Seconds(10);
  int calls = 0;
  std::string answer = "10.0.0.1";
  Resolver resolver = [&](const std::string& host, ProbeProtocol protocol,
                          uint16_t) -> absl::StatusOr<ProbeEndpoint> {
    EXPECT_EQ(host, "peer.internal");
    ++calls;
    if (answer.empty()) return absl::NotFoundError("cannot resolve \"peer.internal\"");
    ProbeEndpoint endpoint = Endpoint(answer);
    endpoint.protocol = protocol;
    return endpoint;
  };
  Prober prober("node-a", config_, transport_, clock_, metrics_,
                recorder_.Options(std::make_unique<testing::InlineResolution>(resolver)));
  prober.SetTargets({testing::Peer("b", "peer.internal")});
  last_ = recorder_.RunUntil(prober, {"b"}, 10);
  EXPECT_EQ(calls, 1);  // 10 probes in < 10 s
  answer = "10.0.0.9";  // the peer moved
  last_ = recorder_.RunUntil(prober, {"b"}, 10);
  EXPECT_EQ(calls, 2);
  EXPECT_GT(transport_.sent["10.0.0.9"], 0);
  answer = "";  // DNS fails: the last address is kept
  const int before = transport_.sent["10.0.0.9"];
  last_ = recorder_.RunUntil(prober, {"b"}, 12);
  EXPECT_GT(transport_.sent["10.0.0.9"], before);
}

TEST_F(ProberTest, AnUnresolvableNameCountsAsLostAndIsRetriedWithBackoff) {
  int calls = 0;
  Resolver resolver = [&](const std::string&, ProbeProtocol,
                          uint16_t) -> absl::StatusOr<ProbeEndpoint> {
    ++calls;
    return absl::NotFoundError("cannot resolve \"nowhere\"");
  };
  Prober prober("node-a", config_, transport_, clock_, metrics_,
                recorder_.Options(std::make_unique<testing::InlineResolution>(resolver)));
  prober.SetTargets({testing::Peer("b", "nowhere.invalid")});
  last_ = recorder_.RunUntil(prober, {"b"}, 30);
  EXPECT_EQ(last_["b"].loss, 1.0);
  EXPECT_THAT(Scrape(),
              HasSubstr(R"(carbonroute_probe_sent_total{source="node-a",target="b"} 30)"));
  // ~30 s of probes: retried after 1, 2, 4, 8, 16 s (at 0, 1, 3, 7, 15, 31 s), not once a probe.
  EXPECT_GE(calls, 4);
  EXPECT_LE(calls, 6);
}

TEST_F(ProberTest, ASlowNameServerHoldsUpNoOtherPeer) {
  absl::Notification answer;
  Resolver resolver = [&](const std::string& host, ProbeProtocol protocol,
                          uint16_t) -> absl::StatusOr<ProbeEndpoint> {
    if (host == "slow.internal") answer.WaitForNotification();  // a DNS server taking its time
    ProbeEndpoint endpoint = Endpoint(host == "slow.internal" ? "10.0.0.2" : host);
    endpoint.protocol = protocol;
    return endpoint;
  };
  ProberOptions options = recorder_.Options();  // the daemon's BackgroundResolver
  options.resolver = resolver;
  Prober prober("node-a", config_, transport_, clock_, metrics_, std::move(options));
  prober.SetTargets({testing::Peer("fast", "10.0.0.1"), testing::Peer("slow", "slow.internal")});
  last_ = recorder_.RunUntil(prober, {"fast"}, 10);  // returns while "slow" is still resolving
  EXPECT_EQ(last_["fast"].outcomes, 10);
  EXPECT_EQ(last_["slow"].outcomes, 0);  // nothing sent, nothing counted lost, before an answer
  EXPECT_EQ(transport_.sent["10.0.0.2"], 0);
  answer.Notify();
  last_ = recorder_.RunUntil(prober, {"slow"}, 3);
  EXPECT_EQ(last_["slow"].loss, 0.0);
  EXPECT_GE(transport_.sent["10.0.0.2"], 3);
}

TEST_F(ProberTest, OneWakePerTickAtAThousandPeersWithExactRtts) {
  // 1000 peers at 1 s: a probe comes due every millisecond on average. The
  // loop wakes on the 20 ms tick grid and handles about twenty at once, instead
  // of waking for each send and each reply (~20,000 waits in 10 s).
  transport_.collect_at_deadline = true;
  std::vector<PeerConfig> peers;
  for (int i = 0; i < 1000; ++i) {
    peers.push_back(
        testing::Peer(absl::StrCat("peer-", i), absl::StrCat("10.0.", i / 250, ".", 1 + i % 250)));
    transport_.behaviour[peers.back().address].delay = absl::Microseconds(300 + i);
  }
  std::vector<std::string> names;
  for (const PeerConfig& peer : peers) names.push_back(peer.name);
  Prober prober("node-a", config_, transport_, clock_, metrics_, recorder_.Options());
  prober.SetTargets(peers);
  last_ = recorder_.RunUntil(prober, names, 10);
  EXPECT_LE(transport_.waits, 560);  // ~11 s of 20 ms ticks
  EXPECT_GE(transport_.waits, 450);
  // Collecting replies a tick late does not change an RTT: it is the answer's own time.
  EXPECT_EQ(last_["peer-0"].smoothed, absl::Microseconds(300));
  EXPECT_EQ(last_["peer-999"].smoothed, absl::Microseconds(1299));
  EXPECT_EQ(last_["peer-500"].loss, 0.0);
}

TEST_F(ProberTest, ASilentPeersMeasuredRttGoesAtTheStalenessDeadlineNotAtTheNextProbe) {
  // Probes every 10 s; the RTT is stale 3 s after the last answer arrived.
  // The next probe's loss comes 11 s after the last one was sent: too late.
  config_.interval = absl::Seconds(10);
  config_.jitter = 0;
  config_.stale_after = absl::Seconds(3);
  transport_.behaviour["10.0.0.1"].delay = absl::Milliseconds(400);
  Prober prober("node-a", config_, transport_, clock_, metrics_, recorder_.Options());
  prober.SetTargets({testing::Peer("b", "10.0.0.1")});
  recorder_.RunUntil(prober, {"b"}, 1);
  const absl::Time answered = clock_.Now();  // the answer's own time: the loop stopped there
  const std::string kMeasured =
      R"(carbonroute_rtt_seconds{method="measured",source="node-a",target="b"})";
  ASSERT_THAT(Scrape(), HasSubstr(kMeasured));
  transport_.behaviour["10.0.0.1"].silent = true;

  // The loop runs its checks at the clock's time when a Wait returns: the
  // wake in which the series went is the one before the Wait that first
  // sees it gone.
  absl::Time last_wake = answered;
  absl::Time removed_at = absl::InfiniteFuture();
  transport_.after_wait = [&] {
    if (Scrape().find(kMeasured) == std::string::npos) {
      removed_at = last_wake;
      prober.Stop();
    }
    last_wake = clock_.Now();
  };
  prober.Run();
  // Age counts from the answer (not the send, 400 ms earlier), and the loop
  // woke for the deadline instead of waiting for the next probe's loss.
  EXPECT_GE(removed_at, answered + absl::Seconds(3));
  EXPECT_LE(removed_at, answered + absl::Seconds(3) + Prober::Tick(config_.interval));
  EXPECT_EQ(last_["b"].outcomes, 0);  // no probe outcome was needed for it
}

TEST_F(ProberTest, EachProberDrawsItsOwnSeedUnlessGivenOne) {
  // Echo tokens and jitter come from the seed: collectors rolled out at once
  // must not share it (lockstep probes, predictable tokens).
  auto first_tokens = [&](std::optional<uint64_t> seed) {
    testing::FakeClock clock(kStart);
    ScriptedTransport transport(clock);
    testing::ProbeRecorder recorder;
    ProberOptions options = recorder.Options();
    options.seed = seed;
    Prober prober("node-a", config_, transport, clock, metrics_, std::move(options));
    prober.SetTargets({testing::Peer("b", "10.0.0.1")});
    recorder.RunUntil(prober, {"b"}, 3);
    return transport.tokens;
  };
  EXPECT_EQ(first_tokens(7), first_tokens(7));
  EXPECT_NE(first_tokens(std::nullopt), first_tokens(std::nullopt));
}

TEST(Prober, TickIsAFiftiethOfTheIntervalWithin1To20Ms) {
  EXPECT_EQ(Prober::Tick(absl::Seconds(1)), absl::Milliseconds(20));
  EXPECT_EQ(Prober::Tick(absl::Seconds(30)), absl::Milliseconds(20));
  EXPECT_EQ(Prober::Tick(absl::Milliseconds(200)), absl::Milliseconds(4));
  EXPECT_EQ(Prober::Tick(absl::Milliseconds(10)), absl::Milliseconds(1));
}

TEST(ResolveWithGetaddrinfo, NumericAddressesAndPorts) {
  absl::StatusOr<ProbeEndpoint> v4 = ResolveWithGetaddrinfo("127.0.0.1", ProbeProtocol::kTcp, 9464);
  ASSERT_TRUE(v4.ok()) << v4.status();
  EXPECT_EQ(v4->ToString(), "127.0.0.1:9464");
  absl::StatusOr<ProbeEndpoint> v6 = ResolveWithGetaddrinfo("::1", ProbeProtocol::kTcp, 22);
  ASSERT_TRUE(v6.ok()) << v6.status();  // a literal needs no lookup, with or without IPv6
  EXPECT_EQ(v6->ToString(), "[::1]:22");
  EXPECT_EQ(v6->family(), AF_INET6);
  EXPECT_FALSE(ResolveWithGetaddrinfo("999.1.1.1", ProbeProtocol::kIcmp, 0).ok());
}

TEST(ResolveWithGetaddrinfo, AHostNameResolvesThroughTheSystemResolver) {
  // "localhost" comes from /etc/hosts (or nss-myhostname), which a minimal
  // system may lack: then this case cannot be checked here, and says so.
  addrinfo* found = nullptr;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_flags = AI_ADDRCONFIG;  // as ResolveWithGetaddrinfo asks
  if (getaddrinfo("localhost", nullptr, &hints, &found) != 0) {
    GTEST_SKIP() << "this system does not resolve \"localhost\" (no /etc/hosts entry)";
  }
  freeaddrinfo(found);
  absl::StatusOr<ProbeEndpoint> named =
      ResolveWithGetaddrinfo("localhost", ProbeProtocol::kIcmp, 0);
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_THAT(named->ToString(), ::testing::AnyOf("127.0.0.1", "::1"));
}

}  // namespace
}  // namespace carbonroute::prober
