// File: scheduler-lite/command_flags.h
//
// What several subcommands share: the model sources' flags (--metrics,
// --prometheus, the static data files and the sources' TLS and credentials),
// the Kubernetes flags (KubeFlags: where the API is, --watch-timeout), the
// Lease flags (LeaseFlags), the power model's flags, the controller manager's
// options from them (ManagerOptionsFrom), the checks of flag values, and
// loading the model with its warnings.
//
// Errors: the *Flag checks throw CLI::ValidationError naming the flag and the
// value (main turns it into exit 2). Not thread-safe; used from main's thread.
#ifndef CARBONROUTE_SCHEDULER_LITE_COMMAND_FLAGS_H_
#define CARBONROUTE_SCHEDULER_LITE_COMMAND_FLAGS_H_

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "base/log_line.h"
#include "cli/daemon_flags.h"
#include "controller_runtime/controller_manager.h"
#include "kube/kube_client.h"
#include "kube/kube_connection.h"
#include "kube/lease_election.h"
#include "kube/list_watch.h"
#include "ledger/power_model.h"
#include "model_sources/model_loader.h"
#include "net/http_client.h"
#include "net/web_config.h"
#include "placement/placement_model.h"
#include "prometheus/registry.h"

namespace carbonroute::scheduler_lite {

// A positive duration such as 2h or 90m.
absl::Duration DurationFlag(const std::string& text, const char* flag);

// A comma-separated list of numbers in [min, max_exclusive), duplicates dropped.
std::vector<double> NumberListFlag(const std::string& text, const char* flag, double min,
                                   double max_exclusive, const char* expected);

// Latency limits in milliseconds (finite, ≥ 0), comma-separated: the one check
// of every --max-rtt-ms (rank and explain take one, simulate a list).
std::vector<double> LatencyLimitsFlag(const std::string& text, const char* flag);

// The CLI11 check of a number flag that must be ≥ 0: "expected a number ≥ 0,
// got \"-1\"" (CLI::NonNegativeNumber prints its 300-digit upper bound).
CLI::Validator AtLeastZero();

// The scoring knobs every scoring subcommand takes, declared once
// (placement/scoring.h): --carbon-weight (w_c), --latency-weight (w_l) and
// --carbon-tolerance (τ, gCO2eq/kWh), each ≥ 0, bound to the caller's
// fields; `whose` starts their help ("the carbonroute policy's " for simulate).
void AddScoringFlags(CLI::App& cmd, double& carbon_weight, double& latency_weight,
                     double& carbon_tolerance, const std::string& whose = "");

// Each empty path of `files` becomes the shipped data file it names
// (base/data_files.h), searched for as the collector does: `dirs` (--data-dir),
// $CARBONROUTE_DATA_DIR, ./data, next to the binary, the installed one. A path
// already given is kept. kNotFound, naming every path tried, for the first file
// that is nowhere (the later ones are left as they were).
absl::Status FillDefaultDataFiles(
    const std::vector<std::string>& dirs,
    std::initializer_list<std::pair<std::string*, const char*>> files);

// Where the Kubernetes API is, defined once for every subcommand that talks
// to it (hold, karmada --apply and --controller, route --controller, serve):
// --kubeconfig, --kube-context,
// --kube-api-url, --kube-token-file, --kube-ca-file, resolved as every
// Kubernetes client resolves them (kube/kube_connection.h: the flags, else
// $KUBECONFIG, else the Pod's service account, else ~/.kube/config).
class KubeFlags {
 public:
  void AddTo(CLI::App& cmd);
  // The connection; false after saying why on `err` (a usage error: exit 2).
  bool Resolve(kube::KubeConnection& connection, std::ostream& err) const;
  // The exit code when Resolve fails: 2 (usage) when a flag named the API (a missing
  // kubeconfig, a context naming no cluster), 1 (a start-up failure, as the collector's) when
  // nothing did and none was found (not in a Pod, no $KUBECONFIG, no ~/.kube/config).
  int ResolveExitCode() const;
  // Whether the user named a Kubernetes API with one of these flags.
  bool Named() const;
  // --watch-timeout, for the commands that watch (hold, karmada and route
  // --controller, serve): how long the API server keeps each watch open
  // (the watch's timeoutSeconds) before it is started again; at least 1s.
  void AddWatchTimeoutTo(CLI::App& cmd);
  // The flag's value (call after Validate: a bad value is a usage error there).
  absl::Duration watch_timeout() const;

 private:
  kube::KubeOptions options_;
  std::string watch_timeout_ = "5m";
};

// One acting replica of a controller (hold, karmada and route --controller), defined
// once: --lease-namespace (default $POD_NAMESPACE; empty: act alone),
// --lease-name, --identity (default $POD_NAME, else host-pid).
class LeaseFlags {
 public:
  explicit LeaseFlags(std::string default_name) { options_.name = std::move(default_name); }
  void AddTo(CLI::App& cmd);
  // Fills the defaults from the environment (call from Validate).
  void Fill();
  bool enabled() const { return !options_.namespace_name.empty(); }
  const kube::LeaseOptions& options() const { return options_; }

 private:
  kube::LeaseOptions options_;
};

// The start every controller command shares (hold, karmada --controller,
// route --controller): the Kubernetes connection `kube` names, the logger
// from `daemon`'s --log.* flags (a daemon from here on), and the controller
// manager (controller_runtime/controller_manager.h) with the server's address
// and web config from `daemon`, the Lease from `lease`, the Events'
// `component` ("carbonroute-hold") and the landing page's `title`. Null after
// saying on `err` why the connection cannot be resolved (a usage error: exit 2).
// Borrows `http`, which must outlive the manager.
std::unique_ptr<controller_runtime::ControllerManager> StartControllerManager(
    const KubeFlags& kube, const cli::DaemonFlags& daemon, const LeaseFlags& lease,
    std::string component, std::string title, net::HttpClient& http, std::ostream& err);

// The power model's coefficients for the savings ledger (ledger/power_model.h,
// where each default's source is cited), defined once: --watts-per-cpu,
// --watts-per-gb, --watts-per-gpu (each ≥ 0; a usage error otherwise).
class PowerModelFlags {
 public:
  void AddTo(CLI::App& cmd);
  const ledger::PowerModel& model() const { return model_; }

 private:
  ledger::PowerModel model_;
};

// The client options of every subcommand that reads a source (a collector
// or Prometheus behind TLS and authentication), defined once: --ca-file,
// --client-cert/--client-key, --basic-auth-user with
// --basic-auth-password-file, --bearer-token-file.
class ClientFlags {
 public:
  void AddTo(CLI::App& cmd);
  const model_sources::SourceAuth& auth() const { return auth_; }

 private:
  model_sources::SourceAuth auth_;
};

// The flags of the sources a placement model is built from.
class SourceFlags {
 public:
  void AddTo(CLI::App& cmd);
  // Sets `sources` from the flags, with the default data files found; with no
  // --metrics or --prometheus, the local collector's /metrics. False (exit 1)
  // after saying on `err` which data file is missing and where it was looked for.
  bool Resolve(model_sources::ModelSources& sources, std::ostream& err) const;

 private:
  std::vector<std::string> metrics_;
  std::string prometheus_;
  std::string rtt_matrix_;
  std::string region_zones_;
  std::vector<std::string> data_dirs_;
  std::string emissions_type_ = "average";
  std::vector<std::string> rtt_sources_;
  ClientFlags client_;
};

// The daemon flags' defaults of a `--controller` mode listening on `listen_address`.
cli::DaemonFlagDefaults ControllerDaemonDefaults(std::string listen_address);

// The start of a controller command that reads a placement model (karmada and
// route --controller): the sources `sources` names, then StartControllerManager.
// `manager` is null after saying why on `err`, with `exit_code` 1 when a default
// data file is missing, else KubeFlags::ResolveExitCode().
struct ModelControllerStart {
  model_sources::ModelSources sources;
  std::unique_ptr<controller_runtime::ControllerManager> manager;
  int exit_code = 0;
};
ModelControllerStart StartModelController(const SourceFlags& sources, const KubeFlags& kube,
                                          const cli::DaemonFlags& daemon, const LeaseFlags& lease,
                                          std::string component, std::string title,
                                          net::HttpClient& http, std::ostream& err);

// Loads the model from `sources`; prints every source error as a warning on
// `err`. nullptr (exit 1) when no source could be read.
std::shared_ptr<const placement::PlacementModel> LoadModelOrSay(
    const model_sources::ModelSources& sources, net::HttpClient& http, Clock& clock,
    std::ostream& err);

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_COMMAND_FLAGS_H_
