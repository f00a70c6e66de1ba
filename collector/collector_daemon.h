// File: collector/collector_daemon.h
//
// The composition root of carbonroute-collector: from a validated
// configuration, builds the metrics registry and three parts, each with one
// job, and runs them:
//   - the carbon side (collector/carbon_side.h): the cache, the providers
//     behind their limiters, the poll loop, the SDK API, the KEDA publisher;
//   - the peer set (collector/peer_set.h): this node's identity, the declared
//     RTT row, the probed peers (configured, discovered, reloaded) and the prober;
//   - the HTTP endpoint (collector/collector_endpoint.h): /metrics, /healthz,
//     the status page, the forecast and SDK APIs, over a read-only view.
// With rtt.discovery.kubernetes, the Nodes the discovery lists
// (discovery/node_discovery.h) go to both: the peer set's identity and
// peers, and the grid locations of the providers with `locations: nodes`.
//
// Under systemd (Type=notify), Run() sends STATUS= lines and, with
// WatchdogSec=, WATCHDOG=1 only while the poll and probe loops keep their
// promises (collector/service_notifier.h, base/progress_monitor.h).
//
// Ownership: owns everything it builds; borrows the clock, which must outlive it.
// Thread safety: Run() on one thread; port(), StatusLine() and ReloadPeers() from any.
#ifndef CARBONROUTE_COLLECTOR_COLLECTOR_DAEMON_H_
#define CARBONROUTE_COLLECTOR_COLLECTOR_DAEMON_H_

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "base/clock.h"
#include "base/data_files.h"
#include "base/progress_monitor.h"
#include "collector/carbon_side.h"
#include "collector/collector_endpoint.h"
#include "collector/discovered_peers.h"
#include "collector/node_locations.h"
#include "collector/peer_set.h"
#include "collector/readiness.h"
#include "config/collector_config.h"
#include "discovery/node_discovery.h"
#include "exporter/collector_metrics.h"
#include "kube/kube_connection.h"
#include "net/http_client.h"
#include "net/web_config.h"
#include "prometheus/registry.h"

namespace carbonroute::collector {

class CollectorDaemon {
 public:
  // Errors: those of ReadingStore::Open, MakeProvider, SocketProbeTransport::Create,
  // kube::ResolveKubeConnection and HttpServer::Start, each prefixed with what was being built.
  // `http` (may be null: a net::CurlHttpClient is made) carries the live providers' requests.
  // `web` (--web.config.file, loaded by the caller) sets the endpoint's TLS and Basic auth.
  static absl::StatusOr<std::unique_ptr<CollectorDaemon>> Create(
      const CollectorConfig& config, const DataPaths& data, Clock& clock,
      std::unique_ptr<net::HttpClient> http = nullptr, const net::WebConfig& web = {});

  // Everything Create checks short of binding, opening the cache and calling
  // an API: every provider is built (data files read, locations known to
  // them, credentials and environment variables resolved), the static RTT
  // matrix and the discovery's region → location map are read, and the
  // Kubernetes API endpoint is found. The same errors as Create. For --check-config.
  // With `unavailable_here`, what this machine lacks but the one it is meant
  // for may have is named in it instead of failing: every credential that is
  // not there (providers::IsMissingCredential: an unset variable, a missing
  // file; all of them, not the first per provider), and a database directory
  // that does not exist (a unit's StateDirectory= creates it); the rest is
  // checked (a workstation checking a production configuration).
  static absl::Status CheckStartup(const CollectorConfig& config, const DataPaths& data,
                                   std::vector<std::string>* unavailable_here = nullptr);

  // The bound port of the HTTP endpoint.
  int port() const { return endpoint_->port(); }
  // Whether it serves HTTPS (a web config with tls_server_config).
  bool tls() const { return endpoint_->tls(); }

  // Polls, probes the peers that have an address on a second thread
  // (prober.h), discovers Nodes on a third and publishes the KEDA ConfigMaps
  // on a fourth, until `stop` is notified. The HTTP endpoint serves until destruction.
  void Run(absl::Notification& stop);

  // The service's state in one line, for systemd's STATUS=: "14 locations,
  // 0 failing, 1000 peers (998 answering)" ("latency role (no providers), 15
  // peers (15 answering)" without providers): CarbonSide::StatusLine, then
  // PeerSet::StatusLine. Thread safety: any thread.
  std::string StatusLine() const;

  // How often STATUS= is sent at least (more often when systemd's watchdog asks).
  static constexpr absl::Duration kStatusEvery = absl::Seconds(10);

  // Applies a reloaded configuration's `rtt.peers` (SIGHUP): PeerSet::ReloadPeers.
  // Everything else (providers, rtt.probe, rtt.static_matrix, node,
  // listen_address) is read at start only. Thread safety: may run concurrently with Run().
  absl::Status ReloadPeers(const CollectorConfig& config) { return peers_->ReloadPeers(config); }

 private:
  explicit CollectorDaemon(Clock& clock) : clock_(clock) {}
  // rtt.discovery.kubernetes: the Nodes, to the peer set and the carbon side.
  absl::Status BuildDiscovery(const CollectorConfig& config, const DataPaths& data,
                              kube::KubeConnection endpoint);

  Clock& clock_;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<exporter::CollectorMetrics> metrics_;
  ProgressMonitor progress_;
  std::unique_ptr<Readiness> readiness_;  // /livez, /readyz; the first poll's end
  std::unique_ptr<CarbonSide> carbon_;
  std::unique_ptr<PeerSet> peers_;
  RegionLocations region_locations_;      // rtt.discovery.kubernetes.region_locations
  RegionCoordinates region_coordinates_;  // read when a WattTime provider has `locations: nodes`
  std::unique_ptr<net::HttpClient> discovery_http_;
  std::unique_ptr<discovery::NodeDiscovery> discovery_;  // null without rtt.discovery
  // Declared last: destroyed first, so no handler runs against freed state.
  std::unique_ptr<CollectorEndpoint> endpoint_;
};

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_COLLECTOR_DAEMON_H_
