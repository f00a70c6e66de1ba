// Kubernetes node discovery at cluster scale, and what peer selection does
// to the number of series (bench/README.md "Node discovery").
//
//  1. 5,000 Nodes of about 12 KB each (NodeJson) in 50 zones, listed in pages of 500 from a fake
//  API server
//     on loopback (test/testing/fake_kube_api_server.h), then 1,000 watch
//     events (MODIFIED, each changing a label; 500 sent at once, 500 one at
//     a time, so each of those reaches the listener alone): CPU time of the discovery thread
//     (libcurl, parsing, the collector's peer selection in the listener) and the process's RSS
//     growth. The server and its Node JSON are made before the baseline.
//  2. Series per collector and per cluster at 100 / 1,000 / 5,000 Nodes,
//     `all` against `sampled` (defaults 5 + 2 per remote zone).
//
// Usage: discovery_benchmark [ROUNDS]   (default 3)
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "bench/gke_node_json.h"
#include "collector/discovered_peers.h"
#include "discovery/node_discovery.h"
#include "discovery/peer_selection.h"
#include "exporter/collector_metrics.h"
#include "net/curl_http_client.h"
#include "test/testing/fake_kube_api_server.h"

namespace carbonroute {
namespace {

using bench::NodeJson;

// kB of the process's resident set (VmRSS) or its peak (VmHWM).
long StatusKb(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::string(field).size() + 1));
  }
  return -1;
}

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void DiscoveryRound(int round) {
  constexpr int kNodes = 5000, kZones = 50, kEvents = 1000;
  testing::FakeKubeApiServer server;
  std::vector<std::string> nodes;
  std::size_t bytes = 0;
  for (int i = 0; i < kNodes; ++i) bytes += nodes.emplace_back(NodeJson(i, kZones, "DE")).size();
  if (round == 1) {
    std::printf("%d Nodes of %.1f KB each on average (%.1f MB listed)\n", kNodes,
                static_cast<double>(bytes) / kNodes / 1e3, static_cast<double>(bytes) / 1e6);
  }
  server.SetNodes(nodes, "1");
  std::vector<std::string> events;
  for (int i = 0; i < kEvents; ++i) {
    events.push_back(absl::StrCat(R"({"type":"MODIFIED","object":)",
                                  NodeJson(i * 5, kZones, i % 2 ? "FR" : "NL"), "}"));
  }
  auto http = *net::CurlHttpClient::Create("discovery-benchmark");

  RttConfig rtt;  // the collector's defaults: auto selection, 5 + 2 per remote zone
  NodeConfig self{"gke-prod-pool-0", "region-0", "zone-0", "DE"};
  std::size_t probed = 0;
  const long rss_before = StatusKb("VmRSS");
  double cpu_start = 0, cpu_listed = 0, cpu_end = 0;
  absl::Time listed_at, started_at;
  absl::Notification listed, stop;
  discovery::NodeDiscoveryOptions options;
  options.connection.server = server.base_url();
  options.self_name = "gke-prod-pool-0";
  options.list_watch.page_size = 500;
  discovery::NodeDiscovery discovery(
      options, *http, RealClock(),
      [&](const std::vector<kube::KubeNode>& all, const std::optional<kube::KubeNode>&) {
        probed = collector::DiscoveredPeers(self, all, rtt, {}).size();
        if (!listed.HasBeenNotified()) {
          cpu_listed = ThreadCpuSeconds();
          listed_at = absl::Now();
          listed.Notify();
        }
      });
  std::thread thread([&] {
    cpu_start = ThreadCpuSeconds();
    started_at = absl::Now();
    discovery.Run(stop);
    cpu_end = ThreadCpuSeconds();
  });
  if (!listed.WaitForNotificationWithTimeout(absl::Seconds(60))) {
    std::fprintf(stderr, "the list did not complete in 60 s (see the warnings above)\n");
    std::abort();
  }
  if (!server.AwaitWatches(1, absl::Seconds(60))) std::abort();
  // Half the events at once (the stream batches them), half one at a time:
  // each of those reaches the listener alone (peer selection over 5,000 Nodes).
  for (int i = 0; i < kEvents / 2; ++i) server.SendEvent(events[i]);
  while (discovery.stats().events < kEvents / 2) absl::SleepFor(absl::Microseconds(50));
  for (int i = kEvents / 2; i < kEvents; ++i) {
    server.SendEvent(events[i]);
    while (discovery.stats().events < i + 1) absl::SleepFor(absl::Microseconds(50));
  }
  stop.Notify();
  server.EndWatch();
  thread.join();
  const long rss_after = StatusKb("VmRSS");
  std::printf(
      "round %d: list of %d Nodes: %.0f ms wall, %.0f ms CPU; %d watch events: %.0f ms CPU "
      "(%.0f us each, %lld listener calls); RSS growth %.1f MB (peak RSS %.1f MB); %zu probed\n",
      round, kNodes, absl::ToDoubleMilliseconds(listed_at - started_at),
      (cpu_listed - cpu_start) * 1e3, kEvents, (cpu_end - cpu_listed) * 1e3,
      (cpu_end - cpu_listed) * 1e6 / kEvents,
      static_cast<long long>(discovery.stats().notifications),
      static_cast<double>(rss_after - rss_before) / 1024.0,
      static_cast<double>(StatusKb("VmHWM")) / 1024.0, probed);
}

// `nodes` Nodes spread round-robin over `zones` zones.
std::vector<kube::KubeNode> Cluster(int nodes, int zones) {
  std::vector<kube::KubeNode> cluster;
  for (int i = 0; i < nodes; ++i) {
    kube::KubeNode& node = cluster.emplace_back();
    node.name = absl::StrCat("gke-prod-pool-", i);
    node.zone = absl::StrCat("zone-", i % zones);
    node.address = "10.0.0.1";
  }
  return cluster;
}

void SeriesCounts() {
  constexpr std::size_t kPerPeer = 4;  // carbonroute_rtt_seconds, loss ratio, sent, received
  constexpr std::size_t kHistogram =
      exporter::PeerSeriesTable::kRttBuckets.size() + 3;  // +Inf, _sum, _count
  constexpr std::size_t kHistogramMaxPeers = exporter::PeerSeriesTable::kDefaultHistogramMaxPeers;
  std::printf(
      "\nseries per probed peer: %zu (carbonroute_rtt_seconds, loss ratio, sent, received), "
      "+%zu for the RTT histogram while a collector has at most %zu peers (the default)\n",
      kPerPeer, kHistogram, kHistogramMaxPeers);
  auto series_for = [&](std::size_t peers) {
    return peers * (kPerPeer + (peers <= kHistogramMaxPeers ? kHistogram : 0));
  };
  std::printf("%-7s %-6s %-8s %-22s %-24s %s\n", "nodes", "zones", "mode", "targets/collector",
              "series/collector", "series/cluster");
  for (const auto& [nodes, zones] : {std::pair{100, 5}, {1000, 20}, {5000, 50}}) {
    const std::vector<kube::KubeNode> cluster = Cluster(nodes, zones);
    for (const PeerSelectionMode mode : {PeerSelectionMode::kAll, PeerSelectionMode::kSampled}) {
      PeerSelectionConfig config;
      config.mode = mode;
      std::size_t total = 0, most = 0;
      for (const kube::KubeNode& source : cluster) {
        const std::size_t n =
            discovery::SelectPeers(source.name, source.zone, cluster, config).size();
        total += series_for(n);
        most = std::max(most, n);
      }
      // + carbonroute_zone_rtt_seconds: one per zone a collector reaches.
      const std::size_t zone_series = static_cast<std::size_t>(zones);
      std::printf("%-7d %-6d %-8s %-22zu %-24zu %zu\n", nodes, zones,
                  mode == PeerSelectionMode::kAll ? "all" : "sampled", most,
                  series_for(most) + zone_series,
                  total + zone_series * static_cast<std::size_t>(nodes));
    }
  }
}

// Churn: the share of all (source, target) choices that change when one Node leaves.
void Churn() {
  constexpr int kNodes = 5000, kZones = 50;
  const std::vector<kube::KubeNode> cluster = Cluster(kNodes, kZones);
  PeerSelectionConfig config;
  auto choices = [&](const std::vector<kube::KubeNode>& nodes) {
    std::set<std::pair<std::string, std::string>> all;
    for (const kube::KubeNode& source : nodes) {
      for (std::size_t i : discovery::SelectPeers(source.name, source.zone, nodes, config)) {
        all.emplace(source.name, nodes[i].name);
      }
    }
    return all;
  };
  const auto before = choices(cluster);
  for (const int removed : {0, 2500, 4999}) {
    std::vector<kube::KubeNode> smaller = cluster;
    smaller.erase(smaller.begin() + removed);
    const auto after = choices(smaller);
    std::vector<std::pair<std::string, std::string>> changed;
    std::set_symmetric_difference(before.begin(), before.end(), after.begin(), after.end(),
                                  std::back_inserter(changed));
    std::printf("removing node-%d of %d: %zu of %zu choices change (%.3f %%)\n", removed, kNodes,
                changed.size(), before.size(),
                100.0 * static_cast<double>(changed.size()) / static_cast<double>(before.size()));
  }
}

}  // namespace
}  // namespace carbonroute

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  for (int round = 1; round <= rounds; ++round) carbonroute::DiscoveryRound(round);
  carbonroute::SeriesCounts();
  carbonroute::Churn();
}
