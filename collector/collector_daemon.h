// File: collector/collector_daemon.h
//
// The composition root of carbonroute-collector: builds the cache, the
// providers, the metrics registry and the HTTP endpoint (/metrics, /healthz)
// from a validated configuration, then runs the poll loop.
//
// / is the status page for people (exporter/status_page.h: the RTT pairs as a
// heatmap, carbon by location), refreshed from /api/v1/status.
// /healthz answers 200 "ok" once the first poll has completed, 503 before.
// /api/v1/forecast?location=L answers the cached forecast points of every
// provider polling L (a grid location in any case, or a cloud region of one),
// from now on (contract/forecast_api.h): 400 without `location`, 404 if no
// provider polls it, 503 if the cache cannot be read.
// /emissions/... and /locations answer the Carbon Aware SDK's Web API from
// the cache (carbon_aware/carbon_aware_api.h), locations named as grid
// locations or as the cloud regions of data/cloud-regions.csv.
//
// With rtt.discovery.kubernetes, the peers are the cluster's Nodes
// (discovery/node_discovery.h), chosen by rtt.peer_selection
// (discovery/peer_selection.h) and merged with rtt.peers; the node's own
// region, zone and location come from its Node where the configuration
// leaves them empty (collector/discovered_peers.h). A provider with
// `locations: nodes` polls the grid locations of the listed Nodes
// (collector/node_locations.h), followed as they change; with
// rtt.peer_selection.mode none, no Node is probed (the carbon role).
//
// Every HTTP provider's calls go through its own client-side limiter
// (providers/call_limiter.h): never over the account's published limits.
//
// Under systemd (Type=notify), Run() sends STATUS= lines and, with
// WatchdogSec=, WATCHDOG=1 only while the poll and probe loops keep their
// promises (collector/service_notifier.h, base/progress_monitor.h).
//
// Ownership: owns everything it builds; borrows the clock, which must outlive it.
// Thread safety: Run() on one thread; port() from any.
#ifndef CARBONROUTE_COLLECTOR_COLLECTOR_DAEMON_H_
#define CARBONROUTE_COLLECTOR_COLLECTOR_DAEMON_H_

#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "base/clock.h"
#include "cache/reading_store.h"
#include "carbon_aware/carbon_aware_api.h"
#include "collector/carbon_aware_data.h"
#include "collector/discovered_peers.h"
#include "collector/node_locations.h"
#include "collector/poller.h"
#include "collector/service_notifier.h"
#include "config/collector_config.h"
#include "discovery/node_discovery.h"
#include "exporter/collector_metrics.h"
#include "exporter/status_page.h"
#include "keda/keda_publishing.h"
#include "net/http_client.h"
#include "net/http_server.h"
#include "net/web_config.h"
#include "prober/probe_transport.h"
#include "prober/prober.h"
#include "prometheus/registry.h"
#include "providers/call_limiter.h"
#include "providers/make_provider.h"

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
  int port() const { return server_->port(); }
  // Whether it serves HTTPS (a web config with tls_server_config).
  bool tls() const { return tls_; }

  // Polls, probes the peers that have an address on a second thread
  // (prober.h) and discovers Nodes on a third, until `stop` is notified. The
  // HTTP endpoint serves until destruction.
  void Run(absl::Notification& stop);

  // The service's state in one line, for systemd's STATUS=: "14 locations,
  // 0 failing, 1000 peers (998 answering)" ("latency role (no providers), 15
  // peers (15 answering)" without providers): distinct grid locations, with
  // " (15 series)" when some location has several providers; failing series
  // (backoff, rate limited or paused for a configuration error) at the end of
  // their last poll; peers as of the last probe interval.
  // Thread safety: any thread.
  std::string StatusLine() const;

  // How often STATUS= is sent at least (more often when systemd's watchdog asks).
  static constexpr absl::Duration kStatusEvery = absl::Seconds(10);

  net::HttpServerResponse ForecastPage(const net::HttpServerRequest& request) const;

  // What GET /api/v1/status answers (exporter/status_page.h): this collector's
  // RTT pairs, and for every series its providers poll the reading exported
  // now, its age, whether the series is paused, and the next 24 h of forecast.
  exporter::StatusSnapshot Status();

  // Applies a reloaded configuration's `rtt.peers` (SIGHUP), merged with the
  // discovered Nodes as at start: peers added are
  // probed, peers removed have their series deleted, peers whose address,
  // protocol or port changed start afresh. Everything else (providers,
  // rtt.probe, rtt.static_matrix, node, listen_address) is read at start
  // only; a change to rtt.probe or rtt.static_matrix is logged as needing a
  // restart (the other settings are not compared).
  // Errors (nothing is changed): kFailedPrecondition when the new peers need
  // what the running collector did not set up: probed peers when it started
  // with none, or an ICMP peer when it started with TCP peers only (no ICMP
  // socket). Thread safety: may run concurrently with Run().
  absl::Status ReloadPeers(const CollectorConfig& config);

 private:
  CollectorDaemon(Clock& clock) : clock_(clock) {}
  // Create, one part each (errors as Create's, prefixed):
  // The carbon side: the HTTP client, the cache, the providers behind their
  // limiters, the poller, the SDK API and the KEDA publisher.
  absl::Status BuildCarbon(const CollectorConfig& config, const DataPaths& data,
                           std::unique_ptr<net::HttpClient> http);
  absl::StatusOr<std::vector<providers::Provider*>> BuildProviders(const CollectorConfig& config,
                                                                   const DataPaths& data);
  // Each monthly budget counts the calls this month's earlier runs made (the cache's count).
  void SeedMonthlyBudgets();
  // The latency side: node_info, the declared RTT row and the prober.
  absl::Status BuildLatency(const CollectorConfig& config, const DataPaths& data);
  // rtt.discovery.kubernetes: the Nodes, the peers of the latency side and the
  // grid locations of the carbon side (`locations: nodes`).
  absl::Status BuildDiscovery(const CollectorConfig& config, const DataPaths& data,
                              kube::KubeConnection endpoint);
  // The HTTP endpoint: /metrics, /healthz, the status page, the forecast and SDK APIs.
  absl::Status StartEndpoint(const CollectorConfig& config, const net::WebConfig& web);
  // Errors: those of SocketProbeTransport::Create, prefixed "rtt.peers".
  absl::Status StartProber(const CollectorConfig& config);
  void RunPolls(absl::Notification& stop);
  // The discovery listener: this node's identity, then its peers.
  void OnDiscovered(const std::vector<kube::KubeNode>& nodes,
                    const std::optional<kube::KubeNode>& self);
  void ApplyIdentity(const NodeConfig& node) ABSL_EXCLUSIVE_LOCKS_REQUIRED(peers_mutex_);
  // `locations: nodes`: hands each such provider the grid locations of `nodes`.
  void FollowNodeLocations(const std::vector<kube::KubeNode>& nodes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(peers_mutex_);
  // A call through a provider's limiter: the budget gauges, and a log line
  // when calls start or stop being held back.
  void OnLimitedCall(const std::string& provider, const providers::LimitedCall& call);

  Clock& clock_;
  std::unique_ptr<net::HttpClient> http_;
  // Provider name → its limited client over http_, one per HTTP provider;
  // declared before the providers that borrow them.
  std::vector<std::pair<std::string, std::unique_ptr<providers::LimitedHttpClient>>> limited_http_;
  absl::Mutex held_mutex_;
  std::set<std::string> held_providers_ ABSL_GUARDED_BY(held_mutex_);  // whose calls are held
  std::unique_ptr<cache::ReadingStore> store_;
  std::vector<std::unique_ptr<providers::Provider>> providers_;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<exporter::CollectorMetrics> metrics_;
  std::unique_ptr<Poller> poller_;
  // The Carbon Aware SDK's Web API over the cache (carbon_aware/carbon_aware_api.h).
  std::unique_ptr<CacheCarbonAwareData> carbon_aware_data_;
  std::unique_ptr<carbon_aware::CarbonAwareApi> carbon_aware_api_;
  std::unique_ptr<keda::KedaPublishing> keda_;              // null without publish.keda_configmaps
  std::vector<std::pair<std::string, std::string>> links_;  // the status page's: path, description
  absl::Duration longest_call_ = absl::Minutes(1);          // for the poll loops' promises
  ProgressMonitor progress_;
  std::shared_ptr<std::atomic<bool>> first_poll_done_;
  std::unique_ptr<prober::ProbeTransport> transport_;  // null without probed peers
  bool icmp_sockets_ = false;                          // whether transport_ opened ICMP sockets
  // The probe settings the prober was built with: a reload that changes
  // them is told they need a restart.
  ProbeConfig started_probe_;
  std::string started_static_matrix_;
  std::unique_ptr<prober::Prober> prober_;
  DataPaths data_;
  RttConfig rtt_;
  std::unique_ptr<net::HttpClient> discovery_http_;
  std::unique_ptr<discovery::NodeDiscovery> discovery_;  // null without rtt.discovery
  RegionLocations region_locations_;
  RegionCoordinates region_coordinates_;  // read when a WattTime provider has `locations: nodes`
  bool exports_node_info_ = true;         // false for the carbon role
  std::vector<ProviderConfig> node_located_;  // the providers with `locations: nodes`
  // Per such provider: its locations and unmapped Nodes as last logged.
  std::map<std::string, NodeLocations> logged_locations_ ABSL_GUARDED_BY(peers_mutex_);
  absl::Mutex peers_mutex_;
  NodeConfig node_ ABSL_GUARDED_BY(peers_mutex_);
  std::vector<PeerConfig> configured_peers_ ABSL_GUARDED_BY(peers_mutex_);
  std::vector<PeerConfig> discovered_peers_ ABSL_GUARDED_BY(peers_mutex_);
  std::size_t discovered_nodes_ ABSL_GUARDED_BY(peers_mutex_) = 0;
  // Declared last: destroyed first, so no handler runs against freed state.
  std::unique_ptr<net::HttpServer> server_;
  bool tls_ = false;
};

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_COLLECTOR_DAEMON_H_
