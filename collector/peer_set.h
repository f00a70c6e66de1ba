// File: collector/peer_set.h
//
// The collector's latency side: this node's identity (as configured, its
// region, zone and location completed from its Node where the configuration
// leaves them empty: collector/discovered_peers.h), `carbonroute_node_info`
// (not in the carbon role, which speaks for the cluster's locations), the
// declared RTT row (rtt.static_matrix), and the peers it probes: rtt.peers,
// replaced on reload, merged with the Nodes the discovery lists
// (discovery/peer_selection.h), handed to the prober (prober/prober.h).
//
// Errors (Create): DeclaredRow's ("rtt.static_matrix: ..."), and
// SocketProbeTransport::Create's prefixed "rtt.peers". ReloadPeers: see there.
// Ownership: owns the prober and its sockets; borrows the clock, the metrics
// and the progress monitor, which must outlive it. Thread safety:
// RunProbes/StopProbes on the running thread; OnDiscovered, ReloadPeers,
// node_name and StatusLine from any thread.
#ifndef CARBONROUTE_COLLECTOR_PEER_SET_H_
#define CARBONROUTE_COLLECTOR_PEER_SET_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/clock.h"
#include "base/data_files.h"
#include "base/progress_monitor.h"
#include "collector/discovered_peers.h"
#include "config/collector_config.h"
#include "exporter/collector_metrics.h"
#include "kube/kube_node.h"
#include "prober/probe_transport.h"
#include "prober/prober.h"

namespace carbonroute::collector {

class PeerSet {
 public:
  static absl::StatusOr<std::unique_ptr<PeerSet>> Create(const CollectorConfig& config,
                                                         const DataPaths& data, Clock& clock,
                                                         exporter::CollectorMetrics& metrics,
                                                         ProgressMonitor& progress);

  // The discovery's listener: this node's identity (`self`, its Node), then the
  // peers; `regions` is the discovery's region → location map.
  void OnDiscovered(const std::vector<kube::KubeNode>& nodes,
                    const std::optional<kube::KubeNode>& self, const RegionLocations& regions);

  // Applies a reloaded configuration's `rtt.peers` (SIGHUP), merged with the
  // discovered Nodes: peers added are probed, peers removed have their series
  // deleted, peers whose address, protocol or port changed start afresh.
  // A change to rtt.probe or rtt.static_matrix is logged as needing a restart.
  // Errors (nothing is changed): kFailedPrecondition when the new peers need
  // what the running collector did not set up: probed peers when it started
  // with none, or an ICMP peer when it started with TCP peers only (no ICMP socket).
  absl::Status ReloadPeers(const CollectorConfig& config);

  // Probes until StopProbes (nothing without probed peers).
  void RunProbes();
  void StopProbes();

  std::string node_name() const;
  // ", 15 peers (15 answering)" as of the last probe interval; "" without a prober.
  std::string StatusLine() const;

 private:
  PeerSet(Clock& clock, exporter::CollectorMetrics& metrics) : clock_(clock), metrics_(metrics) {}
  absl::Status StartProber(const CollectorConfig& config, ProgressMonitor& progress);
  void ApplyIdentity(const NodeConfig& node) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  Clock& clock_;
  exporter::CollectorMetrics& metrics_;
  DataPaths data_;
  RttConfig rtt_;
  bool exports_node_info_ = true;  // false for the carbon role
  // The probe settings the prober was built with: a reload that changes
  // them is told they need a restart.
  // What a reload cannot change (it warns): the rtt section as it was at start.
  RttConfig started_rtt_;
  std::unique_ptr<prober::ProbeTransport> transport_;  // null without probed peers
  bool icmp_sockets_ = false;                          // whether transport_ opened ICMP sockets
  std::unique_ptr<prober::Prober> prober_;             // null without probed peers
  mutable absl::Mutex mutex_;
  NodeConfig node_ ABSL_GUARDED_BY(mutex_);
  std::vector<PeerConfig> configured_peers_ ABSL_GUARDED_BY(mutex_);
  std::vector<PeerConfig> discovered_peers_ ABSL_GUARDED_BY(mutex_);
  std::size_t discovered_nodes_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_PEER_SET_H_
