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
#include "collector/discovered_peers.h"
#include "discovery/node_discovery.h"
#include "discovery/peer_selection.h"
#include "exporter/collector_metrics.h"
#include "net/curl_http_client.h"
#include "test/testing/fake_kube_api_server.h"

namespace carbonroute {
namespace {

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

// A Node as a managed cluster's API server returns it (the shape of a GKE
// Node from `kubectl get node -o json`, about 12 KB): some twenty labels and
// annotations, managedFields from four managers, five conditions, node info,
// and the images present on the Node (40, each with a digest and a tag),
// which are most of its bytes. Discovery reads a few fields of it.
std::string NodeJson(int i, int zones, const std::string& location) {
  const int zone = i % zones;
  const std::string name = absl::StrCat("gke-prod-pool-", i);
  const std::string time = "2026-11-25T08:00:00Z";
  std::string images;
  for (int image = 0; image < 40; ++image) {
    absl::StrAppend(&images, image == 0 ? "" : ",", R"({"names":["europe-docker.pkg.dev/project-)",
                    image % 7, R"(/images/service-)", image,
                    R"(@sha256:4f9a1c2b7e3d5a6f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7",)",
                    R"("europe-docker.pkg.dev/project-)", image % 7, R"(/images/service-)", image,
                    R"(:v1.)", image, R"(.0"],"sizeBytes":)", 20'000'000 + image * 1'234'567, "}");
  }
  std::string conditions;
  for (const char* type : {"FrequentUnregisterNetDevice", "KernelDeadlock", "NetworkUnavailable",
                           "MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}) {
    const bool ready = std::string(type) == "Ready";
    absl::StrAppend(&conditions, conditions.empty() ? "" : ",", R"({"type":")", type,
                    R"(","status":")", ready ? "True" : "False", R"(","lastHeartbeatTime":")", time,
                    R"(","lastTransitionTime":")", time, R"(","reason":")",
                    ready ? "KubeletReady" : "NoProblem", R"(","message":")",
                    ready ? "kubelet is posting ready status. AppArmor enabled"
                          : "node is functioning properly",
                    R"("})");
  }
  std::string managed;
  for (const char* manager :
       {"kubelet", "kube-controller-manager", "node-problem-detector", "gke-node-labeler"}) {
    absl::StrAppend(
        &managed, managed.empty() ? "" : ",", R"({"manager":")", manager,
        R"(","operation":"Update","apiVersion":"v1","time":")", time,
        R"(","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},)",
        R"("f:node.alpha.kubernetes.io/ttl":{},"f:volumes.kubernetes.io/controller-managed-attach-detach":{}},)",
        R"("f:labels":{".":{},"f:beta.kubernetes.io/arch":{},"f:beta.kubernetes.io/instance-type":{},)",
        R"("f:cloud.google.com/gke-nodepool":{},"f:kubernetes.io/hostname":{}}},)",
        R"("f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:lastHeartbeatTime":{},)",
        R"("f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},)",
        R"("f:images":{},"f:nodeInfo":{"f:bootID":{},"f:kernelVersion":{}}}}})");
  }
  return absl::StrCat(
      R"({"kind":"Node","apiVersion":"v1","metadata":{"name":")", name,
      R"(","uid":"5c2f9a9e-0d1b-4c7e-9f3a-)", 100000000000 + i, R"(","resourceVersion":")", i,
      R"(","creationTimestamp":")", time, R"(","labels":{"beta.kubernetes.io/arch":"amd64",)",
      R"("beta.kubernetes.io/instance-type":"e2-standard-8","beta.kubernetes.io/os":"linux",)",
      R"("cloud.google.com/gke-boot-disk":"pd-balanced","cloud.google.com/gke-container-runtime":"containerd",)",
      R"("cloud.google.com/gke-nodepool":"prod-pool","cloud.google.com/gke-os-distribution":"cos",)",
      R"("cloud.google.com/machine-family":"e2","cloud.google.com/private-node":"false",)",
      R"("failure-domain.beta.kubernetes.io/region":"region-)", zone / 3,
      R"(","failure-domain.beta.kubernetes.io/zone":"zone-)", zone,
      R"(","kubernetes.io/arch":"amd64","kubernetes.io/hostname":")", name,
      R"(","kubernetes.io/os":"linux","node.kubernetes.io/instance-type":"e2-standard-8",)",
      R"("topology.gke.io/zone":"zone-)", zone, R"(","topology.kubernetes.io/region":"region-)",
      zone / 3, R"(","topology.kubernetes.io/zone":"zone-)", zone,
      R"(","carbonroute.io/location":")", location,
      R"("},"annotations":{"container.googleapis.com/instance_id":")", 7000000000000000000LL + i,
      R"(","csi.volume.kubernetes.io/nodeid":"{\"pd.csi.storage.gke.io\":\"projects/prod/zones/zone-)",
      zone, "/instances/", name,
      R"(\"}","node.alpha.kubernetes.io/ttl":"0","node.gke.io/last-applied-node-labels":"cloud.google.com/gke-boot-disk=pd-balanced,cloud.google.com/gke-container-runtime=containerd,cloud.google.com/gke-nodepool=prod-pool",)",
      R"("volumes.kubernetes.io/controller-managed-attach-detach":"true"},"managedFields":[)",
      managed, R"(]},"spec":{"podCIDR":"10.)", i / 250, ".", i % 250, R"(.0/24","podCIDRs":["10.)",
      i / 250, ".", i % 250, R"(.0/24"],"providerID":"gce://prod/zone-)", zone, "/", name,
      R"("},"status":{"capacity":{"cpu":"8","ephemeral-storage":"98831908Ki","hugepages-1Gi":"0",)",
      R"("hugepages-2Mi":"0","memory":"32880268Ki","pods":"110"},"allocatable":{"cpu":"7910m",)",
      R"("ephemeral-storage":"47060071478","hugepages-1Gi":"0","hugepages-2Mi":"0",)",
      R"("memory":"29094540Ki","pods":"110"},"conditions":[)", conditions,
      R"(],"addresses":[{"type":"InternalIP","address":"10.)", 100 + i / 250, ".", i % 250,
      R"(.1"},{"type":"ExternalIP","address":"34.)", 10 + i / 250, ".", i % 250,
      R"(.7"},{"type":"Hostname","address":")", name,
      R"("}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"nodeInfo":{)",
      R"("machineID":"0c4d6e8f0a1b2c3d4e5f60718293a4b5","systemUUID":"0c4d6e8f-0a1b-2c3d-4e5f-60718293a4b5",)",
      R"("bootID":"b7a8c9d0-e1f2-4a3b-8c4d-5e6f7a8b9c0d","kernelVersion":"6.1.100+",)",
      R"("osImage":"Container-Optimized OS from Google","containerRuntimeVersion":"containerd://1.7.22",)",
      R"("kubeletVersion":"v1.30.5-gke.1014001","kubeProxyVersion":"v1.30.5-gke.1014001",)",
      R"("operatingSystem":"linux","architecture":"amd64"},"images":[)", images, "]}}");
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
  options.endpoint.base_url = server.base_url();
  options.self_name = "gke-prod-pool-0";
  options.page_size = 500;
  discovery::NodeDiscovery discovery(
      options, *http, RealClock(),
      [&](const std::vector<discovery::KubeNode>& all, const std::optional<discovery::KubeNode>&) {
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
std::vector<discovery::KubeNode> Cluster(int nodes, int zones) {
  std::vector<discovery::KubeNode> cluster;
  for (int i = 0; i < nodes; ++i) {
    discovery::KubeNode& node = cluster.emplace_back();
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
    const std::vector<discovery::KubeNode> cluster = Cluster(nodes, zones);
    for (const PeerSelectionMode mode : {PeerSelectionMode::kAll, PeerSelectionMode::kSampled}) {
      PeerSelectionConfig config;
      config.mode = mode;
      std::size_t total = 0, most = 0;
      for (const discovery::KubeNode& source : cluster) {
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
  const std::vector<discovery::KubeNode> cluster = Cluster(kNodes, kZones);
  PeerSelectionConfig config;
  auto choices = [&](const std::vector<discovery::KubeNode>& nodes) {
    std::set<std::pair<std::string, std::string>> all;
    for (const discovery::KubeNode& source : nodes) {
      for (std::size_t i : discovery::SelectPeers(source.name, source.zone, nodes, config)) {
        all.emplace(source.name, nodes[i].name);
      }
    }
    return all;
  };
  const auto before = choices(cluster);
  for (const int removed : {0, 2500, 4999}) {
    std::vector<discovery::KubeNode> smaller = cluster;
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
