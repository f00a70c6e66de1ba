#include "scheduler-lite/serve_command.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "base/log_line.h"
#include "cli/daemon_flags.h"
#include "cli/logging.h"
#include "contract/metric_names.h"
#include "extender/extender_service.h"
#include "extender/pod_ledger.h"
#include "extender/pod_watch.h"
#include "extender/shadow_ledger.h"
#include "kube/kube_client.h"
#include "kube/kube_connection.h"
#include "ledger/ledger.h"
#include "ledger/metered_energy.h"
#include "model_sources/api_nodes.h"
#include "model_sources/collector_pods.h"
#include "net/http_server.h"
#include "net/web_config.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "scheduler-lite/command_flags.h"

namespace carbonroute::scheduler_lite {

using extender::ExtenderService;
using extender::ModelStore;
using extender::TuneAllocatorForLargeRequests;
using model_sources::LoadedModel;
using model_sources::LoadModel;
using placement::ScoringOptions;

namespace {

// How long serve's first model waits for the API's Nodes (model_sources::ApiNodes).
constexpr absl::Duration kFirstNodeListWait = absl::Seconds(10);

class ServeSubcommand final : public Subcommand {
 public:
  const char* name() const override { return "serve"; }
  const char* description() const override {
    return "kube-scheduler extender: POST /filter, /prioritize";
  }
  void AddFlags(CLI::App& cmd) override {
    sources_.AddTo(cmd);
    cmd.add_option("--refresh", refresh_, "how often the model is rebuilt from its sources")
        ->capture_default_str();
    cmd.add_option("--max-model-age", max_model_age_,
                   "a model older than this cannot verify a latency limit: such pods fail the "
                   "filter on every node (at least two --refresh intervals)")
        ->capture_default_str();
    AddScoringFlags(cmd, request_.carbon_weight, request_.latency_weight,
                    request_.carbon_tolerance);
    cmd.add_option("--max-body-bytes", request_.max_body_bytes, "largest request body")
        ->capture_default_str();
    cmd.add_option("--threads", request_.threads,
                   "HTTP server threads (each serves many connections; handlers run on them)")
        ->check(CLI::Range(1, 256).description("1 to 256"))
        ->capture_default_str();
    cmd.add_option("--collector-pods", request_.collector_pods,
                   "read the collectors found through the Kubernetes API: the Pods this label "
                   "selector admits (repeatable, e.g. app=carbonroute-collector), at their "
                   "prometheus.io/port and /path annotations; no Prometheus needed");
    cmd.add_option("--collector-namespace", request_.collector_namespace,
                   "the namespace of --collector-pods (default: this Pod's, else "
                   "$POD_NAMESPACE, else the kubeconfig context's, else default)");
    cmd.add_option("--collector-port", request_.collector_port,
                   "the collectors' port when a Pod has no prometheus.io/port annotation")
        ->check(CLI::Range(1, 65535))
        ->capture_default_str();
    cmd.add_option("--watch-nodes", watch_nodes_,
                   "watch the cluster's Nodes through the Kubernetes API, so a Node that runs no "
                   "collector (a Liqo virtual node) is a candidate too: auto (in a Pod, or when "
                   "a kube flag names an API), true, false")
        ->check(CLI::IsMember({"auto", "true", "false"}))
        ->capture_default_str();
    cmd.add_option("--ledger", ledger_,
                   "book the Pods it scores in the savings ledger: each bound Pod's energy "
                   "(what Kepler or DCGM measured, from the emissions rules' records through "
                   "--prometheus; else its requests through the power model) priced where it "
                   "runs against the "
                   "mean intensity of the Nodes kube-scheduler offered it, interval by interval "
                   "over its life (docs/savings.md); watches the cluster's Pods: auto (when it "
                   "watches the Nodes), true, false")
        ->check(CLI::IsMember({"auto", "true", "false"}))
        ->capture_default_str();
    cmd.add_flag("--shadow", request_.shadow,
                 "try carbonroute without handing it anything: /filter passes every Node and "
                 "/prioritize scores them alike, and the savings ledger (mode=\"shadow\") books, "
                 "for every Pod any scheduler binds, carbonroute's choice among the Nodes it "
                 "could have used (Ready, schedulable, its nodeSelector, required node affinity, "
                 "tolerations, CPU and memory beside the Pods bound there, its delay_<from> "
                 "limits) against where it runs; an estimate that may be too high (inter-Pod "
                 "affinity, topology spread and volume zones are not simulated: docs/savings.md)");
    cmd.add_option("--namespaces", request_.namespaces,
                   "--shadow: only the Pods of these namespaces (repeatable; default: all)");
    power_.AddTo(cmd);
    kube_.AddTo(cmd);
    kube_.AddWatchTimeoutTo(cmd);
    daemon_.AddTo(cmd);
  }
  void Validate() override {
    request_.refresh = DurationFlag(refresh_, "--refresh");
    request_.max_model_age = DurationFlag(max_model_age_, "--max-model-age");
    // Between two refreshes the model ages by --refresh; one refresh may fail (a
    // source down for a moment). A shorter limit would refuse every Pod with a
    // delay_<from> label for a made-up reason while the sources are fine.
    if (request_.max_model_age < 2 * request_.refresh) {
      throw CLI::ValidationError(
          "--max-model-age",
          absl::StrCat("\"", max_model_age_, "\" is shorter than two refreshes (--refresh ",
                       refresh_, "): the model is rebuilt every ", refresh_,
                       ", so it would be called too old between refreshes and every Pod with a "
                       "delay_<from> limit refused; give at least ",
                       absl::FormatDuration(2 * request_.refresh)));
    }
    daemon_.Check();  // before any source is loaded
    request_.listen = daemon_.listen_address();
    request_.log_level = daemon_.log_level().value_or(LogLevel::kInfo);
    request_.log_format = daemon_.log_format();
    request_.web = daemon_.web();
    request_.power_model = power_.model();
  }
  bool WatchesStopSignals() const override { return true; }
  int Run(ProgramContext& c) override {
    if (!sources_.Resolve(request_.sources, c.err)) return 1;
    // auto: in a Pod (the manifest grants the Nodes), or when a kube flag names an API.
    const bool in_pod = kube::InPod({.getenv = [](const char* name) { return std::getenv(name); }});
    const bool nodes_asked = watch_nodes_ == "true" || (watch_nodes_ == "auto" && kube_.Named());
    request_.watch_nodes = nodes_asked || (watch_nodes_ == "auto" && in_pod);
    request_.watch_timeout = kube_.watch_timeout();
    request_.ledger =
        !request_.shadow && (ledger_ == "true" || (ledger_ == "auto" && request_.watch_nodes));
    if (!request_.namespaces.empty() && !request_.shadow) {
      c.err << "scheduler-lite: --namespaces: is for --shadow (the extender scores the Pods "
               "kube-scheduler asks it about)\n";
      return 2;
    }
    if (!request_.collector_pods.empty() || request_.watch_nodes || ledger_ == "true" ||
        request_.shadow) {
      kube::KubeConnection connection;
      std::ostringstream why;
      if (!kube_.Resolve(connection, why)) {
        if (!request_.collector_pods.empty() || nodes_asked || ledger_ == "true" ||
            request_.shadow) {
          c.err << why.str();
          return 2;
        }
        // Found only because this runs in a Pod: serve without the Nodes, saying why.
        c.err << "scheduler-lite: not watching Nodes (--watch-nodes=auto): " << why.str();
        request_.watch_nodes = false;
        request_.ledger = false;
        return ServeCommand(request_, c.http, c.clock, c.signals->stop());
      }
      if (request_.collector_namespace.empty()) {
        const char* pod_namespace = std::getenv("POD_NAMESPACE");
        request_.collector_namespace =
            !connection.namespace_name.empty()                   ? connection.namespace_name
            : pod_namespace != nullptr && *pod_namespace != '\0' ? pod_namespace
                                                                 : "default";
      }
      if (request_.sources.default_source &&
          !request_.collector_pods.empty()) {  // the Pods replace the default local collector
        request_.sources.metrics_urls.clear();
        request_.sources.default_source = false;
      }
      request_.kube = std::move(connection);
    }
    return ServeCommand(request_, c.http, c.clock, c.signals->stop());
  }

 private:
  SourceFlags sources_;
  KubeFlags kube_;
  ServeRequest request_;
  std::string refresh_ = "30s";
  std::string max_model_age_ = "10m";
  std::string watch_nodes_ = "auto";
  std::string ledger_ = "auto";
  PowerModelFlags power_;
  cli::DaemonFlags daemon_{{.listen_address = ServeRequest().listen,
                            .served = "/filter, /prioritize, /metrics and /healthz",
                            .old_listen_flag = "--listen"}};
};

}  // namespace

int ServeCommand(const ServeRequest& request, net::HttpClient& http, Clock& clock,
                 absl::Notification& stop) {
  const net::WebConfig& web = request.web;
  // A daemon from here on: every line with a time and a level (--log.format, --log.level).
  cli::InstallLogger(request.log_format, request.log_level);
  ModelStore models;
  auto registry = std::make_shared<prometheus::Registry>();
  // Collectors found through the Kubernetes API, each set watched on its own thread.
  std::optional<kube::KubeClient> kube_client;
  std::vector<std::unique_ptr<model_sources::CollectorPods>> pods;
  absl::Notification pods_stop;
  std::vector<std::thread> pod_threads;
  if (request.kube) {
    kube_client.emplace(*request.kube, http);
    for (const std::string& selector : request.collector_pods) {
      pods.push_back(std::make_unique<model_sources::CollectorPods>(
          model_sources::CollectorPodsOptions{.namespace_name = request.collector_namespace,
                                              .label_selector = selector,
                                              .default_port = request.collector_port,
                                              .watch_timeout = request.watch_timeout},
          *kube_client, clock));
      pod_threads.emplace_back([&pods_stop, set = pods.back().get()] { set->Run(pods_stop); });
    }
    if (!request.collector_pods.empty()) {
      spdlog::info(absl::StrCat("collectors: the Pods ",
                                absl::StrJoin(request.collector_pods, ", "), " in namespace ",
                                request.collector_namespace, " from ", request.kube->Describe()));
    }
  }
  // The cluster's Nodes, watched on their own thread: candidates without a collector.
  std::unique_ptr<model_sources::ApiNodes> api_nodes;
  if (request.kube && request.watch_nodes) {
    api_nodes =
        std::make_unique<model_sources::ApiNodes>(*kube_client, clock, request.watch_timeout);
    pod_threads.emplace_back([&pods_stop, nodes = api_nodes.get()] { nodes->Run(pods_stop); });
    spdlog::info(absl::StrCat("Nodes: watched on ", request.kube->Describe(),
                              " (a Node without a collector is a candidate; --watch-nodes=false "
                              "to turn off)"));
  }
  ScoringOptions options;
  options.carbon_weight = request.carbon_weight;
  options.latency_weight = request.latency_weight;
  options.carbon_tolerance = request.carbon_tolerance;
  // Longer than three refreshes and a minute, serve cannot vouch for what ran.
  const absl::Duration longest_interval =
      std::max(absl::Minutes(10), 3 * request.refresh + absl::Minutes(1));
  // The savings ledger's entries for the Pods it scores: their bindings from a Pod watch.
  std::optional<ledger::Ledger> ledger;
  std::unique_ptr<extender::PodLedger> pod_ledger;
  std::unique_ptr<extender::PodWatch> pod_watch;
  if (request.kube && request.ledger) {
    ledger.emplace(*registry);
    pod_ledger = std::make_unique<extender::PodLedger>(
        *ledger,
        extender::PodLedgerOptions{.longest_interval = longest_interval,
                                   .power_model = request.power_model},
        clock.Now());
    pod_watch = std::make_unique<extender::PodWatch>(*kube_client, clock, models, *pod_ledger,
                                                     request.watch_timeout);
    pod_threads.emplace_back([&pods_stop, watch = pod_watch.get()] { watch->Run(pods_stop); });
    spdlog::info(absl::StrCat("savings ledger: the Pods on ", request.kube->Describe(),
                              " watched for their bindings (--ledger=false to turn off)"));
  }
  // Shadow mode: every binding any scheduler makes, against carbonroute's choice.
  std::unique_ptr<extender::ShadowLedger> shadow;
  std::unique_ptr<extender::NodeWatch> shadow_nodes;
  if (request.kube && request.shadow) {
    ledger.emplace(*registry);
    shadow = std::make_unique<extender::ShadowLedger>(
        *ledger,
        extender::ShadowLedgerOptions{
            .namespaces = {request.namespaces.begin(), request.namespaces.end()},
            .longest_interval = longest_interval,
            .power_model = request.power_model,
            .scoring = options},
        clock.Now());
    shadow_nodes = std::make_unique<extender::NodeWatch>(*kube_client, clock, *shadow);
    pod_watch = std::make_unique<extender::PodWatch>(*kube_client, clock, models, *shadow,
                                                     request.watch_timeout);
    pod_threads.emplace_back([&pods_stop, watch = shadow_nodes.get()] { watch->Run(pods_stop); });
    pod_threads.emplace_back([&pods_stop, watch = pod_watch.get()] { watch->Run(pods_stop); });
    spdlog::info(absl::StrCat(
        "shadow mode: /filter passes every Node and /prioritize scores them alike; the savings "
        "ledger books carbonroute's choice for every Pod bound on ",
        request.kube->Describe(),
        request.namespaces.empty() ? ""
                                   : absl::StrCat(" in ", absl::StrJoin(request.namespaces, ", ")),
        " (mode=\"shadow\")"));
  }
  // Measured energy for the ledgers, through --prometheus (each window once).
  std::optional<ledger::MeterWindow> meter_window;
  if (ledger && !request.sources.prometheus_url.empty()) {
    meter_window.emplace(clock.Now(), longest_interval);
  }
  struct StopPods {
    absl::Notification& stop;
    std::vector<std::thread>& threads;
    ~StopPods() {
      stop.Notify();
      for (std::thread& thread : threads) thread.join();
    }
  } stop_pods{pods_stop, pod_threads};
  prometheus::Gauge& node_mismatches =
      prometheus::BuildGauge()
          .Name(metric_names::kSchedulerNodeLocationMismatches)
          .Help("Nodes whose collector and Node object name different grid locations")
          .Register(*registry)
          .Add({});
  std::set<std::string> mismatches_said;  // each logged once
  absl::Mutex waiting_mutex;
  std::string waiting_for = "the first refresh";  // what /healthz's 503 names
  bool without_carbon = false;                    // said once per episode
  // Liveness (/livez): the refresh loop ends a turn at least every three
  // --refresh intervals and a minute, whatever its sources answer (each read is
  // bounded by its timeout), so a source outage never restarts the extender.
  std::atomic<int64_t> last_turn_unix{absl::ToUnixSeconds(clock.Now())};
  auto refresh = [&] {
    struct TurnEnd {
      std::atomic<int64_t>& at;
      Clock& clock;
      ~TurnEnd() { at = absl::ToUnixSeconds(clock.Now()); }
    } turn_end{last_turn_unix, clock};
    model_sources::ModelSources sources = request.sources;
    std::vector<std::string> found;
    for (const auto& set : pods) {
      for (std::string& url : set->urls()) sources.metrics_urls.push_back(std::move(url));
      found.push_back(set->describe());
    }
    if (api_nodes != nullptr) {
      sources.api_nodes = api_nodes->nodes();
      found.push_back(api_nodes->describe());
    }
    LoadedModel loaded = LoadModel(sources, http, clock.Now());
    for (const absl::Status& error : loaded.errors) spdlog::warn(std::string(error.message()));
    for (const std::string& mismatch : loaded.node_mismatches) {
      if (mismatches_said.insert(mismatch).second) spdlog::warn(mismatch);
    }
    node_mismatches.Set(static_cast<double>(loaded.node_mismatches.size()));
    {
      absl::MutexLock lock(&waiting_mutex);
      waiting_for = absl::StrCat(
          found.empty() ? "" : absl::StrCat(absl::StrJoin(found, "; "), "; "),
          sources.prometheus_url.empty()
              ? ""
              : absl::StrCat("Prometheus ", sources.prometheus_url, "; "),
          sources.metrics_urls.size(), " metrics URLs, ", loaded.sources_read, " answered",
          loaded.errors.empty() ? "" : absl::StrCat(" (", loaded.errors.front().message(), ")"));
    }
    if (loaded.sources_read == 0) return;
    models.Set(loaded.model);
    const absl::Time now = clock.Now();
    const std::optional<ledger::MeteredPods> metered =
        meter_window ? ReadMeteredEnergy(*meter_window, request.sources, http, now) : std::nullopt;
    const ledger::MeteredPods* measured = metered ? &*metered : nullptr;
    if (pod_ledger != nullptr) pod_ledger->Accrue(loaded.model.get(), now, measured);
    if (shadow != nullptr) shadow->Accrue(loaded.model.get(), now, measured);
    const bool no_carbon = loaded.model->Readings().empty();
    if (no_carbon && !without_carbon) {
      spdlog::warn(extender::kNoCarbonReason);
    } else if (!no_carbon && without_carbon) {
      spdlog::info(absl::StrCat("carbon readings for ", loaded.model->Readings().size(),
                                " locations again"));
    }
    without_carbon = no_carbon;
  };
  // The first model waits for the Nodes' first list (bounded: an API that cannot be read
  // leaves serve with the collectors' Nodes, as before, and the log says so).
  if (api_nodes != nullptr && !api_nodes->WaitForFirstList(kFirstNodeListWait)) {
    spdlog::warn(
        absl::StrCat("the first model is built without the API's Nodes: not listed within ",
                     absl::FormatDuration(kFirstNodeListWait), " (", api_nodes->describe(), ")"));
  }
  refresh();
  TuneAllocatorForLargeRequests();
  ExtenderService service(models, options, clock, *registry, request.max_model_age);
  service.SetPodLedger(pod_ledger.get());
  service.SetNeutral(request.shadow);
  service.SetWaitingFor([&] {
    absl::MutexLock lock(&waiting_mutex);
    return waiting_for;
  });
  net::HttpServerOptions server_options;
  server_options.listen_address = request.listen;
  server_options.routes = service.Routes(registry);
  server_options.routes["/livez"] = [&](const net::HttpServerRequest&) {
    const absl::Duration since = clock.Now() - absl::FromUnixSeconds(last_turn_unix);
    if (since <= 3 * request.refresh + absl::Minutes(1)) {
      return net::HttpServerResponse{200, "text/plain; charset=utf-8", "ok\n"};
    }
    return net::HttpServerResponse{
        503, "text/plain; charset=utf-8",
        absl::StrCat("stuck: the model was last refreshed ", absl::FormatDuration(since),
                     " ago (every ", absl::FormatDuration(request.refresh), ")\n")};
  };
  server_options.max_body_bytes = request.max_body_bytes;
  server_options.threads = request.threads;
  net::ApplyWebConfig(web, server_options);
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server =
      net::HttpServer::Start(std::move(server_options));
  if (!server.ok()) {
    spdlog::error(std::string(server.status().message()));
    return 1;
  }
  spdlog::info(absl::StrCat(
      "serving the kube-scheduler extender on ", web.tls.has_value() ? "https" : "http", "://",
      request.listen.substr(0, request.listen.rfind(':')), ":", (*server)->port(),
      " (POST /filter, /prioritize; GET /, /healthz, /livez, /metrics)"));
  // Until the first model, ask again every few seconds (collector Pods are found
  // as they start), then every --refresh.
  auto next_wait = [&] {
    return models.Get() == nullptr ? std::min(request.refresh, absl::Seconds(2)) : request.refresh;
  };
  while (!clock.WaitUntil(clock.Now() + next_wait(), stop)) refresh();
  spdlog::info("stopped");
  return 0;
}

std::optional<ledger::MeteredPods> ReadMeteredEnergy(ledger::MeterWindow& window,
                                                     const model_sources::ModelSources& sources,
                                                     net::HttpClient& http, absl::Time now) {
  const std::optional<absl::Duration> span = window.Next(now);
  if (!span) return std::nullopt;
  absl::StatusOr<ledger::MeteredPods> metered =
      QueryMeteredPods(http, sources.prometheus_url, ledger::MeteredEnergyQuery(*span),
                       sources.timeout, sources.auth, now);
  if (!metered.ok()) {
    spdlog::warn(
        absl::StrCat("savings ledger: measured energy not read: ", metered.status().message()));
    return std::nullopt;
  }
  window.Read(now);
  return *std::move(metered);
}

std::unique_ptr<Subcommand> NewServeSubcommand() { return std::make_unique<ServeSubcommand>(); }

}  // namespace carbonroute::scheduler_lite
