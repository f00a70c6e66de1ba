#include "collector/peer_set.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "collector/discovered_peers.h"
#include "collector/startup_inputs.h"
#include "discovery/peer_selection.h"
#include "prober/socket_probe_transport.h"

namespace carbonroute::collector {

absl::StatusOr<std::unique_ptr<PeerSet>> PeerSet::Create(const CollectorConfig& config,
                                                         const DataPaths& data, Clock& clock,
                                                         exporter::CollectorMetrics& metrics,
                                                         ProgressMonitor& progress) {
  std::unique_ptr<PeerSet> peers(new PeerSet(clock, metrics));
  peers->data_ = data;
  peers->rtt_ = config.rtt;
  peers->started_rtt_ = config.rtt;
  {
    absl::MutexLock lock(&peers->mutex_);
    peers->node_ = config.node;
    peers->configured_peers_ = config.rtt.peers;
  }
  // The carbon role (discovery with peer selection "none") speaks for the cluster's
  // grid locations, not for the Node it runs on: the latency role there exports its node_info.
  peers->exports_node_info_ = ExportsNodeInfo(config);
  if (peers->exports_node_info_) {
    metrics.SetNodeInfo(config.node.name, config.node.location, config.node.region,
                        config.node.zone);
  }
  if (!config.rtt.static_matrix.empty()) {
    std::string matrix;
    absl::StatusOr<std::vector<DeclaredRtt>> row =
        DeclaredRow(config.node, config.rtt, data, matrix);
    if (!row.ok()) return row.status();
    for (const DeclaredRtt& entry : *row) {
      metrics.SetDeclaredRtt(config.node.name, entry.target, entry.rtt);
    }
    spdlog::info("declared RTTs to {} of {} peers from {}", row->size(), config.rtt.peers.size(),
                 matrix);
  }
  CARBONROUTE_RETURN_IF_ERROR(peers->StartProber(config, progress));
  return peers;
}

absl::Status PeerSet::StartProber(const CollectorConfig& config, ProgressMonitor& progress) {
  std::vector<std::string> probed;
  bool icmp = false;
  for (const PeerConfig& peer : config.rtt.peers) {
    if (peer.address.empty()) continue;
    probed.push_back(peer.location.empty() ? peer.name
                                           : absl::StrCat(peer.name, " (", peer.location, ")"));
    icmp = icmp || peer.protocol == ProbeProtocol::kIcmp;
  }
  // With peer selection "none" (the carbon role), discovery only finds grid locations.
  const bool discovering =
      config.rtt.kubernetes.enabled && config.rtt.peer_selection.mode != PeerSelectionMode::kNone;
  if (discovering) icmp = icmp || config.rtt.kubernetes.protocol == ProbeProtocol::kIcmp;
  if (probed.empty() && !discovering) return absl::OkStatus();
  // ICMP sockets only when an ICMP peer needs them: TCP-only setups need no privilege.
  absl::StatusOr<std::unique_ptr<prober::SocketProbeTransport>> transport =
      prober::SocketProbeTransport::Create(
          icmp ? std::optional(config.rtt.probe.icmp_mode) : std::nullopt,
          static_cast<uint16_t>(getpid()));
  if (!transport.ok()) return Prefixed(transport.status(), "rtt.peers");
  spdlog::info("prober: ICMP mode {}", (*transport)->icmp_mode_description());
  spdlog::info("prober: probing {} configured peers{} every {}: {}", probed.size(),
               discovering ? " and the discovered Nodes" : "",
               absl::FormatDuration(config.rtt.probe.interval), absl::StrJoin(probed, ", "));
  transport_ = *std::move(transport);
  icmp_sockets_ = icmp;
  prober::ProberOptions options;
  options.progress = &progress;
  metrics_.SetProbeHistogramMaxPeers(
      static_cast<std::size_t>(config.rtt.probe.histogram_max_peers));
  prober_ = std::make_unique<prober::Prober>(config.node.name, config.rtt.probe, *transport_,
                                             clock_, metrics_, std::move(options));
  prober_->SetTargets(config.rtt.peers);
  if (!config.node.zone.empty()) prober_->SetSourceZone(config.node.zone);
  return absl::OkStatus();
}

void PeerSet::ApplyIdentity(const NodeConfig& node) {
  if (node.region == node_.region && node.zone == node_.zone && node.location == node_.location) {
    return;
  }
  const bool region_learnt = node_.region.empty() && !node.region.empty();
  node_ = node;
  spdlog::info(
      "kubernetes discovery: this node is {} in region \"{}\", zone \"{}\", grid "
      "location \"{}\"",
      node_.name, node_.region, node_.zone, node_.location);
  if (exports_node_info_) {
    metrics_.SetNodeInfo(node_.name, node_.location, node_.region, node_.zone);
  }
  if (prober_ != nullptr) prober_->SetSourceZone(node_.zone);
  if (region_learnt && !rtt_.static_matrix.empty()) {
    RttConfig rtt = rtt_;
    rtt.peers = configured_peers_;  // the reloaded ones
    std::string matrix;
    absl::StatusOr<std::vector<DeclaredRtt>> row = DeclaredRow(node_, rtt, data_, matrix);
    if (!row.ok()) {
      spdlog::warn("kubernetes discovery: declared RTTs: {}", row.status().ToString());
      return;
    }
    for (const DeclaredRtt& entry : *row) {
      metrics_.SetDeclaredRtt(node_.name, entry.target, entry.rtt);
    }
  }
}

void PeerSet::OnDiscovered(const std::vector<kube::KubeNode>& nodes,
                           const std::optional<kube::KubeNode>& self,
                           const RegionLocations& regions) {
  absl::MutexLock lock(&mutex_);
  if (self) ApplyIdentity(IdentityFromNode(node_, *self, regions));
  std::vector<PeerConfig> peers = DiscoveredPeers(node_, nodes, rtt_, regions);
  if (nodes.size() != discovered_nodes_ || peers.size() != discovered_peers_.size()) {
    const auto virtual_nodes = std::count_if(
        nodes.begin(), nodes.end(), [](const kube::KubeNode& n) { return n.virtual_node; });
    spdlog::info(
        "kubernetes discovery: {} Nodes, {} probed from here ({}){}", nodes.size(), peers.size(),
        discovery::EffectiveMode(rtt_.peer_selection, nodes.size()) == PeerSelectionMode::kAll
            ? "all"
            : absl::StrCat("sampled: ", rtt_.peer_selection.same_zone, " of this zone, ",
                           rtt_.peer_selection.per_remote_zone, " per other zone"),
        virtual_nodes == 0
            ? ""
            : absl::StrCat("; ", virtual_nodes,
                           " Liqo virtual nodes not probed (their InternalIP is the local "
                           "virtual-kubelet pod; their RTT is the declared matrix's)"));
  }
  discovered_nodes_ = nodes.size();
  discovered_peers_ = std::move(peers);
  if (prober_ != nullptr) prober_->SetTargets(MergePeers(configured_peers_, discovered_peers_));
}

absl::Status PeerSet::ReloadPeers(const CollectorConfig& config) {
  std::size_t probed = 0;
  for (const PeerConfig& peer : config.rtt.peers) {
    if (peer.address.empty()) continue;
    ++probed;
    if (prober_ == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "rtt.peers: peer \"", peer.name,
          "\" has an address, but the collector started with no probed peer; restart it to probe"));
    }
    if (peer.protocol == ProbeProtocol::kIcmp && !icmp_sockets_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "rtt.peers: peer \"", peer.name,
          "\" uses ICMP, but the collector started with TCP peers only and has no ICMP socket; "
          "restart it"));
    }
  }
  std::vector<std::string> need_restart;
  if (!(config.rtt.probe == started_rtt_.probe)) need_restart.emplace_back("rtt.probe");
  if (config.rtt.static_matrix != started_rtt_.static_matrix) {
    need_restart.emplace_back("rtt.static_matrix");
  }
  if (!(config.rtt.kubernetes == started_rtt_.kubernetes))
    need_restart.emplace_back("rtt.kubernetes");
  if (!(config.rtt.peer_selection == started_rtt_.peer_selection)) {
    need_restart.emplace_back("rtt.peer_selection");
  }
  if (!need_restart.empty()) {
    spdlog::warn("reload: {} changed: only rtt.peers is reloaded; these apply after a restart",
                 absl::StrJoin(need_restart, ", "));
  }
  {
    absl::MutexLock lock(&mutex_);
    configured_peers_ = config.rtt.peers;
    if (prober_ != nullptr) prober_->SetTargets(MergePeers(configured_peers_, discovered_peers_));
  }
  spdlog::info("reload: {} probed peers configured", probed);
  return absl::OkStatus();
}

void PeerSet::RunProbes() {
  if (prober_ != nullptr) prober_->Run();
}

void PeerSet::StopProbes() {
  if (prober_ != nullptr) prober_->Stop();
}

std::string PeerSet::node_name() const {
  absl::MutexLock lock(&mutex_);
  return node_.name;
}

std::string PeerSet::StatusLine() const {
  if (prober_ == nullptr) return "";
  const prober::Prober::PeerCounts peers = prober_->peer_counts();
  return absl::StrCat(", ", peers.peers, peers.peers == 1 ? " peer (" : " peers (", peers.fresh,
                      " answering)");
}

}  // namespace carbonroute::collector
