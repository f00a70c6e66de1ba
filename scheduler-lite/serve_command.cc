#include "scheduler-lite/serve_command.h"

#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log_line.h"
#include "cli/daemon_flags.h"
#include "cli/logging.h"
#include "extender/extender_daemon.h"
#include "kube/kube_connection.h"
#include "scheduler-lite/command_flags.h"

namespace carbonroute::scheduler_lite {

namespace {

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
        ->check(CLI::Range(1024.0, 4294967296.0).description("1024 to 4294967296"))
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
    request_.web = daemon_.web();
    request_.power_model = power_.model();
  }
  bool WatchesStopSignals() const override { return true; }
  int Run(ProgramContext& c) override {
    const int code = Resolve(c);
    if (code != kServe) return code;
    // A daemon from here on: every line with a time and a level (--log.format, --log.level).
    cli::InstallLogger(daemon_.log_format(), daemon_.log_level().value_or(LogLevel::kInfo));
    return extender::RunExtenderDaemon(request_, c.http, c.clock, c.signals->stop());
  }

 private:
  static constexpr int kServe = -1;
  // The sources and the Kubernetes connection the flags name: kServe, or the
  // exit code of a usage (2) or start-up (1) error, said on c.err.
  int Resolve(ProgramContext& c) {
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
          return kube_.ResolveExitCode();
        }
        // Found only because this runs in a Pod: serve without the Nodes, saying why.
        c.err << "scheduler-lite: not watching Nodes (--watch-nodes=auto): " << why.str();
        request_.watch_nodes = false;
        request_.ledger = false;
        return kServe;
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
    return kServe;
  }

  SourceFlags sources_;
  KubeFlags kube_;
  extender::ExtenderDaemonOptions request_;
  std::string refresh_ = "30s";
  std::string max_model_age_ = "10m";
  std::string watch_nodes_ = "auto";
  std::string ledger_ = "auto";
  PowerModelFlags power_;
  cli::DaemonFlags daemon_{{.listen_address = extender::ExtenderDaemonOptions().listen,
                            .served = "/filter, /prioritize, /metrics and /healthz",
                            .old_listen_flag = "--listen"}};
};

}  // namespace

std::unique_ptr<Subcommand> NewServeSubcommand() { return std::make_unique<ServeSubcommand>(); }

}  // namespace carbonroute::scheduler_lite
