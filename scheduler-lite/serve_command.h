// File: scheduler-lite/serve_command.h
//
// `scheduler-lite serve`: the kube-scheduler extender (extender/) over HTTP,
// its model rebuilt from its sources every --refresh, until SIGINT/SIGTERM.
//
// Exit codes: 0 stopped by a signal; 1 the server could not start; 2 a bad
// --web.config.file (read before any source is asked).
#ifndef CARBONROUTE_SCHEDULER_LITE_SERVE_COMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_SERVE_COMMAND_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "base/log_line.h"
#include "kube/kube_connection.h"
#include "kube/list_watch.h"
#include "ledger/metered_energy.h"
#include "ledger/power_model.h"
#include "model_sources/model_loader.h"
#include "net/http_client.h"
#include "net/web_config.h"
#include "placement/scoring.h"
#include "scheduler-lite/subcommand.h"

namespace carbonroute::scheduler_lite {

struct ServeRequest {
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
  LogFormat log_format = LogFormat::kLogfmt;
  LogLevel log_level = LogLevel::kInfo;
  // Collectors found through the Kubernetes API (model_sources/collector_pods.h):
  // one label selector per set of Pods, in `collector_namespace`; read besides
  // the --metrics URLs the user gave. Needs `kube`.
  std::vector<std::string> collector_pods;
  std::string collector_namespace;
  int collector_port = 9464;
  // Watch the cluster's Nodes (model_sources/api_nodes.h): Nodes without a
  // collector (Liqo virtual nodes) are candidates too. Needs `kube`.
  bool watch_nodes = false;
  // How long the API server keeps each watch of the Nodes open (--watch-timeout).
  absl::Duration watch_timeout = kube::kDefaultWatchTimeout;
  // Book the Pods it scored in the savings ledger (extender/pod_ledger.h): a
  // Pod watch learns their bindings. Needs `kube`.
  bool ledger = false;
  // Shadow mode (extender/shadow_ledger.h): the extender answers neutrally,
  // and the ledger books carbonroute's choice for every binding any scheduler
  // makes (in `namespaces`, empty: all). Needs `kube`.
  bool shadow = false;
  std::vector<std::string> namespaces;
  ledger::PowerModel power_model;
  std::optional<kube::KubeConnection> kube;
};
// Serves until `stop` is notified.
int ServeCommand(const ServeRequest& request, net::HttpClient& http, Clock& clock,
                 absl::Notification& stop);

std::unique_ptr<Subcommand> NewServeSubcommand();

// What Kepler and DCGM measured of each Pod in `window`'s window ending at
// `now`, read through `sources.prometheus_url` from the emissions rules'
// records (ledger/metered_energy.h); nullopt when there is no window to read,
// or Prometheus did not answer (logged; the window stays open to be read
// next time). Exposed for tests.
std::optional<ledger::MeteredPods> ReadMeteredEnergy(ledger::MeterWindow& window,
                                                     const model_sources::ModelSources& sources,
                                                     net::HttpClient& http, absl::Time now);

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_SERVE_COMMAND_H_
