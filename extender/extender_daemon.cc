#include "extender/extender_daemon.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <set>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "contract/metric_names.h"
#include "extender/extender_service.h"
#include "extender/pod_ledger.h"
#include "extender/pod_watch.h"
#include "extender/shadow_ledger.h"
#include "kube/controller_loop.h"
#include "kube/kube_client.h"
#include "ledger/ledger.h"
#include "model_sources/api_nodes.h"
#include "model_sources/collector_pods.h"
#include "model_sources/measured_energy.h"
#include "net/http_server.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace carbonroute::extender {
namespace {

using model_sources::LoadedModel;

class ExtenderDaemon {
 public:
  ExtenderDaemon(const ExtenderDaemonOptions& options, net::HttpClient& http, Clock& clock);
  ~ExtenderDaemon();  // stops the watches and joins their threads
  int Run(absl::Notification& stop);

 private:
  // The watches the options ask for, each on a thread of its own.
  void WatchCollectors();
  void WatchNodes();
  void BookScoredPods();
  void BookEveryBinding();
  // One rebuild of the model from its sources, and the ledgers' accrual.
  void Refresh();
  // Says once when the model has no carbon readings, and when they are back.
  void SayWhetherCarbon(const LoadedModel& loaded);
  net::HttpServerResponse Livez() const;
  std::string WaitingFor() const;

  const ExtenderDaemonOptions& options_;
  net::HttpClient& http_;
  Clock& clock_;
  ModelStore models_;
  const std::shared_ptr<prometheus::Registry> registry_ = std::make_shared<prometheus::Registry>();
  placement::ScoringOptions scoring_;
  // Longer than three refreshes and a minute, serve cannot vouch for what ran.
  const absl::Duration longest_interval_;
  std::optional<kube::KubeClient> kube_client_;
  std::vector<std::unique_ptr<model_sources::CollectorPods>> collector_pods_;
  std::unique_ptr<model_sources::ApiNodes> api_nodes_;
  std::optional<ledger::Ledger> ledger_;
  std::unique_ptr<PodLedger> pod_ledger_;
  std::unique_ptr<ShadowLedger> shadow_;
  std::unique_ptr<NodeWatch> shadow_nodes_;
  std::unique_ptr<PodWatch> pod_watch_;
  std::optional<ledger::MeterWindow> meter_window_;  // measured energy, each window once
  absl::Notification watches_stop_;
  std::vector<std::thread> watch_threads_;
  prometheus::Gauge* node_mismatches_ = nullptr;
  prometheus::Gauge* pod_watch_up_ = nullptr;  // with a Pod watch only
  // Starts the Pod watch for `observer` and its carbonroute_scheduler_pod_watch_up.
  void WatchPods(PodObserver& observer);
  std::set<std::string> mismatches_said_;  // each logged once
  mutable absl::Mutex waiting_mutex_;
  std::string waiting_for_ ABSL_GUARDED_BY(waiting_mutex_) = "the first refresh";
  bool without_carbon_ = false;  // said once per episode
  std::atomic<int64_t> last_turn_unix_;
};

ExtenderDaemon::ExtenderDaemon(const ExtenderDaemonOptions& options, net::HttpClient& http,
                               Clock& clock)
    : options_(options),
      http_(http),
      clock_(clock),
      longest_interval_(std::max(absl::Minutes(10), 3 * options.refresh + absl::Minutes(1))),
      last_turn_unix_(absl::ToUnixSeconds(clock.Now())) {
  scoring_.carbon_weight = options.carbon_weight;
  scoring_.latency_weight = options.latency_weight;
  scoring_.carbon_tolerance = options.carbon_tolerance;
  node_mismatches_ = &prometheus::BuildGauge()
                          .Name(metric_names::kSchedulerNodeLocationMismatches)
                          .Help(
                              "Nodes whose collector and Node object name different grid "
                              "locations")
                          .Register(*registry_)
                          .Add({});
  if (!options.kube) return;
  kube_client_.emplace(*options.kube, http);
  WatchCollectors();
  if (options.watch_nodes) WatchNodes();
  if (options.ledger) BookScoredPods();
  if (options.shadow) BookEveryBinding();
  if (ledger_ && !options.sources.prometheus_url.empty()) {
    meter_window_.emplace(clock.Now(), longest_interval_);
  }
}

ExtenderDaemon::~ExtenderDaemon() {
  watches_stop_.Notify();
  for (std::thread& thread : watch_threads_) thread.join();
}

void ExtenderDaemon::WatchCollectors() {
  for (const std::string& selector : options_.collector_pods) {
    collector_pods_.push_back(std::make_unique<model_sources::CollectorPods>(
        model_sources::CollectorPodsOptions{.namespace_name = options_.collector_namespace,
                                            .label_selector = selector,
                                            .default_port = options_.collector_port,
                                            .watch_timeout = options_.watch_timeout},
        *kube_client_, clock_));
    watch_threads_.emplace_back(
        [this, set = collector_pods_.back().get()] { set->Run(watches_stop_); });
  }
  if (!options_.collector_pods.empty()) {
    spdlog::info(absl::StrCat("collectors: the Pods ", absl::StrJoin(options_.collector_pods, ", "),
                              " in namespace ", options_.collector_namespace, " from ",
                              options_.kube->Describe()));
  }
}

void ExtenderDaemon::WatchNodes() {
  api_nodes_ =
      std::make_unique<model_sources::ApiNodes>(*kube_client_, clock_, options_.watch_timeout);
  watch_threads_.emplace_back([this] { api_nodes_->Run(watches_stop_); });
  spdlog::info(absl::StrCat("Nodes: watched on ", options_.kube->Describe(),
                            " (a Node without a collector is a candidate; --watch-nodes=false "
                            "to turn off)"));
}

void ExtenderDaemon::BookScoredPods() {
  ledger_.emplace(*registry_);
  pod_ledger_ = std::make_unique<PodLedger>(
      *ledger_,
      PodLedgerOptions{.longest_interval = longest_interval_, .power_model = options_.power_model},
      clock_.Now());
  WatchPods(*pod_ledger_);
  spdlog::info(absl::StrCat("savings ledger: the Pods on ", options_.kube->Describe(),
                            " watched for their bindings (--ledger=false to turn off)"));
}

void ExtenderDaemon::BookEveryBinding() {
  ledger_.emplace(*registry_);
  shadow_ = std::make_unique<ShadowLedger>(
      *ledger_,
      ShadowLedgerOptions{.namespaces = {options_.namespaces.begin(), options_.namespaces.end()},
                          .longest_interval = longest_interval_,
                          .power_model = options_.power_model,
                          .scoring = scoring_},
      clock_.Now());
  shadow_nodes_ = std::make_unique<NodeWatch>(*kube_client_, clock_, *shadow_);
  watch_threads_.emplace_back([this] { shadow_nodes_->Run(watches_stop_); });
  WatchPods(*shadow_);
  spdlog::info(absl::StrCat(
      "shadow mode: /filter passes every Node and /prioritize scores them alike; the savings "
      "ledger books carbonroute's choice for every Pod bound on ",
      options_.kube->Describe(),
      options_.namespaces.empty() ? ""
                                  : absl::StrCat(" in ", absl::StrJoin(options_.namespaces, ", ")),
      " (mode=\"shadow\")"));
}

void ExtenderDaemon::WatchPods(PodObserver& observer) {
  pod_watch_ =
      std::make_unique<PodWatch>(*kube_client_, clock_, models_, observer, options_.watch_timeout);
  pod_watch_up_ = &prometheus::BuildGauge()
                       .Name(metric_names::kSchedulerPodWatchUp)
                       .Help(
                           "1 while serve's Pod watch answers; 0 while its requests fail and "
                           "the savings ledger books nothing.")
                       .Register(*registry_)
                       .Add({});
  watch_threads_.emplace_back([this] { pod_watch_->Run(watches_stop_); });
}

void ExtenderDaemon::Refresh() {
  struct TurnEnd {
    std::atomic<int64_t>& at;
    Clock& clock;
    ~TurnEnd() { at = absl::ToUnixSeconds(clock.Now()); }
  } turn_end{last_turn_unix_, clock_};
  model_sources::ModelSources sources = options_.sources;
  std::vector<std::string> found;
  for (const auto& set : collector_pods_) {
    for (std::string& url : set->urls()) sources.metrics_urls.push_back(std::move(url));
    found.push_back(set->describe());
  }
  if (api_nodes_ != nullptr) {
    sources.api_nodes = api_nodes_->nodes();
    found.push_back(api_nodes_->describe());
  }
  LoadedModel loaded = model_sources::LoadModel(sources, http_, clock_.Now());
  for (const absl::Status& error : loaded.errors) spdlog::warn(std::string(error.message()));
  for (const std::string& mismatch : loaded.node_mismatches) {
    if (mismatches_said_.insert(mismatch).second) spdlog::warn(mismatch);
  }
  node_mismatches_->Set(static_cast<double>(loaded.node_mismatches.size()));
  if (pod_watch_up_ != nullptr) pod_watch_up_->Set(pod_watch_->Failing().empty() ? 1 : 0);
  {
    absl::MutexLock lock(&waiting_mutex_);
    waiting_for_ = absl::StrCat(
        found.empty() ? "" : absl::StrCat(absl::StrJoin(found, "; "), "; "),
        sources.prometheus_url.empty() ? ""
                                       : absl::StrCat("Prometheus ", sources.prometheus_url, "; "),
        sources.metrics_urls.size(), " metrics URLs, ", loaded.sources_read, " answered",
        loaded.errors.empty() ? "" : absl::StrCat(" (", loaded.errors.front().message(), ")"));
  }
  if (loaded.sources_read == 0) return;
  models_.Set(loaded.model);
  const absl::Time now = clock_.Now();
  const std::optional<ledger::MeteredPods> metered =
      meter_window_ ? ReadMeteredEnergy(*meter_window_, options_.sources, http_, now)
                    : std::nullopt;
  const ledger::MeteredPods* measured = metered ? &*metered : nullptr;
  if (pod_ledger_ != nullptr) pod_ledger_->Accrue(loaded.model.get(), now, measured);
  if (shadow_ != nullptr) shadow_->Accrue(loaded.model.get(), now, measured);
  SayWhetherCarbon(loaded);
}

void ExtenderDaemon::SayWhetherCarbon(const LoadedModel& loaded) {
  const bool no_carbon = loaded.model->Readings().empty();
  if (no_carbon && !without_carbon_) {
    spdlog::warn(kNoCarbonReason);
  } else if (!no_carbon && without_carbon_) {
    spdlog::info(
        absl::StrCat("carbon readings for ", loaded.model->Readings().size(), " locations again"));
  }
  without_carbon_ = no_carbon;
}

std::string ExtenderDaemon::WaitingFor() const {
  absl::MutexLock lock(&waiting_mutex_);
  return waiting_for_;
}

net::HttpServerResponse ExtenderDaemon::Livez() const {
  const absl::Duration since = clock_.Now() - absl::FromUnixSeconds(last_turn_unix_);
  if (kube::Turning(since, options_.refresh)) {
    return net::HttpServerResponse{200, "text/plain; charset=utf-8", "ok\n"};
  }
  return net::HttpServerResponse{
      503, "text/plain; charset=utf-8",
      absl::StrCat("stuck: the model was last refreshed ", absl::FormatDuration(since),
                   " ago (every ", absl::FormatDuration(options_.refresh), ")\n")};
}

int ExtenderDaemon::Run(absl::Notification& stop) {
  // The first model waits for the Nodes' first list (bounded: an API that cannot be read
  // leaves serve with the collectors' Nodes, and the log says so).
  if (api_nodes_ != nullptr && !api_nodes_->WaitForFirstList(kFirstNodeListWait)) {
    spdlog::warn(
        absl::StrCat("the first model is built without the API's Nodes: not listed within ",
                     absl::FormatDuration(kFirstNodeListWait), " (", api_nodes_->describe(), ")"));
  }
  Refresh();
  TuneAllocatorForLargeRequests();
  ExtenderService service(models_, scoring_, clock_, *registry_, options_.max_model_age);
  service.SetPodLedger(pod_ledger_.get());
  service.SetNeutral(options_.shadow);
  service.SetWaitingFor([this] { return WaitingFor(); });
  if (options_.shadow) {  // a trial that books nothing says so
    service.SetUnreadyBecause([this] {
      const std::string failing = pod_watch_->Failing();
      return failing.empty()
                 ? failing
                 : absl::StrCat("shadow mode books nothing: the Pod watch fails: ", failing);
    });
  }
  net::HttpServerOptions server_options;
  server_options.listen_address = options_.listen;
  server_options.routes = service.Routes(registry_);
  server_options.routes["/livez"] = [this](const net::HttpServerRequest&) { return Livez(); };
  server_options.max_body_bytes = options_.max_body_bytes;
  server_options.threads = options_.threads;
  net::ApplyWebConfig(options_.web, server_options);
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server =
      net::HttpServer::Start(std::move(server_options));
  if (!server.ok()) {
    spdlog::error(std::string(server.status().message()));
    return 1;
  }
  spdlog::info(absl::StrCat(
      "serving the kube-scheduler extender on ", options_.web.tls.has_value() ? "https" : "http",
      "://", options_.listen.substr(0, options_.listen.rfind(':')), ":", (*server)->port(),
      " (POST /filter, /prioritize; GET /, /healthz, /livez, /metrics)"));
  // Until the first model, ask again every few seconds (collector Pods are found
  // as they start), then every --refresh.
  auto next_wait = [&] {
    return models_.Get() == nullptr ? std::min(options_.refresh, absl::Seconds(2))
                                    : options_.refresh;
  };
  while (!clock_.WaitUntil(clock_.Now() + next_wait(), stop)) Refresh();
  spdlog::info("stopped");
  return 0;
}

}  // namespace

int RunExtenderDaemon(const ExtenderDaemonOptions& options, net::HttpClient& http, Clock& clock,
                      absl::Notification& stop) {
  ExtenderDaemon daemon(options, http, clock);
  return daemon.Run(stop);
}

std::optional<ledger::MeteredPods> ReadMeteredEnergy(ledger::MeterWindow& window,
                                                     const model_sources::ModelSources& sources,
                                                     net::HttpClient& http, absl::Time now) {
  const std::optional<absl::Duration> span = window.Next(now);
  if (!span) return std::nullopt;
  absl::StatusOr<ledger::MeteredPods> metered = model_sources::QueryMeteredPods(
      http, sources.prometheus_url, ledger::MeteredEnergyQuery(*span), sources.timeout,
      sources.auth, now);
  if (!metered.ok()) {
    spdlog::warn(
        absl::StrCat("savings ledger: measured energy not read: ", metered.status().message()));
    return std::nullopt;
  }
  window.Read(now);
  return *std::move(metered);
}

}  // namespace carbonroute::extender
