// File: extender/extender_daemon.h
//
// `scheduler-lite serve` as a daemon, composed here as the collector's is in
// collector/: the kube-scheduler extender (extender_service.h) over HTTP, its
// placement model rebuilt from its sources every `refresh`, and around it
// what the options ask for:
//   - collectors found through the Kubernetes API (model_sources/collector_pods.h),
//     one watch thread per label selector;
//   - the cluster's Nodes (model_sources/api_nodes.h), watched on a thread, so
//     a Node without a collector is a candidate; the first model waits up to
//     kFirstNodeListWait for their first list;
//   - the savings ledger of the Pods it scores (pod_ledger.h, a Pod watch for
//     their bindings), or in shadow mode the ledger of every binding any
//     scheduler makes (shadow_ledger.h, a Node and a Pod watch);
//   - their measured energy through Prometheus (model_sources/measured_energy.h),
//     each window once (ledger::MeterWindow).
// Served: POST /filter, /prioritize; GET /, /metrics, /healthz (503 naming
// what it waits for until the first model), /livez (503 once no refresh ended
// within kube::Turning's rule: the controllers' rule, with --refresh as the period).
//
// Errors: Run returns 1 when the server cannot listen (logged), else 0 once
// `stop` is notified. Sources that cannot be read are logged each refresh and
// named by /healthz; the model keeps the last one read.
// Ownership: borrows `http` and `clock`, which must outlive it; owns its watch
// threads (joined when Run returns).
// Thread safety: Run on one thread; the server's handlers on its own.
#ifndef CARBONROUTE_EXTENDER_EXTENDER_DAEMON_H_
#define CARBONROUTE_EXTENDER_EXTENDER_DAEMON_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "kube/kube_connection.h"
#include "kube/list_watch.h"
#include "ledger/metered_energy.h"
#include "ledger/power_model.h"
#include "model_sources/model_loader.h"
#include "net/http_client.h"
#include "net/web_config.h"
#include "placement/scoring.h"

namespace carbonroute::extender {

// How long the first model waits for the API's Nodes (model_sources::ApiNodes).
inline constexpr absl::Duration kFirstNodeListWait = absl::Seconds(10);

struct ExtenderDaemonOptions {
  model_sources::ModelSources sources;
  std::string listen = "127.0.0.1:8888";
  absl::Duration refresh = absl::Seconds(30);
  // Older than this (or before the first model), a latency limit cannot be verified.
  absl::Duration max_model_age = absl::Minutes(10);
  double carbon_weight = placement::kDefaultCarbonWeight;
  double latency_weight = placement::kDefaultLatencyWeight;
  double carbon_tolerance = placement::kDefaultCarbonTolerance;  // gCO2eq/kWh
  std::size_t max_body_bytes = 64 << 20;  // full NodeLists of thousands of nodes
  int threads = 4;                        // epoll threads, each serving many connections
  net::WebConfig web;                     // TLS and Basic auth (--web.config.file)
  // Collectors found through the Kubernetes API: one label selector per set of
  // Pods, in `collector_namespace`; read besides the sources' --metrics URLs. Needs `kube`.
  std::vector<std::string> collector_pods;
  std::string collector_namespace;
  int collector_port = 9464;
  // Watch the cluster's Nodes: Nodes without a collector are candidates too. Needs `kube`.
  bool watch_nodes = false;
  // How long the API server keeps each watch open (--watch-timeout).
  absl::Duration watch_timeout = kube::kDefaultWatchTimeout;
  // Book the Pods it scored in the savings ledger (a Pod watch learns their bindings).
  bool ledger = false;
  // Shadow mode: the extender answers neutrally, and the ledger books
  // carbonroute's choice for every binding any scheduler makes (in `namespaces`, empty: all).
  bool shadow = false;
  std::vector<std::string> namespaces;
  ledger::PowerModel power_model;
  std::optional<kube::KubeConnection> kube;
};

// Serves until `stop` is notified: 0, or 1 when the server cannot start.
int RunExtenderDaemon(const ExtenderDaemonOptions& options, net::HttpClient& http, Clock& clock,
                      absl::Notification& stop);

// What Kepler and DCGM measured of each Pod in `window`'s window ending at
// `now`, read through `sources.prometheus_url` from the emissions rules'
// records (ledger/metered_energy.h); nullopt when there is no window to read,
// or Prometheus did not answer (logged; the window stays open to be read
// next time). Exposed for tests.
std::optional<ledger::MeteredPods> ReadMeteredEnergy(ledger::MeterWindow& window,
                                                     const model_sources::ModelSources& sources,
                                                     net::HttpClient& http, absl::Time now);

}  // namespace carbonroute::extender

#endif  // CARBONROUTE_EXTENDER_EXTENDER_DAEMON_H_
