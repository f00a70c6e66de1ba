#include "scheduler-lite/rebalance_command.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/daemon_flags.h"
#include "ledger/ledger.h"
#include "rebalance/rebalance_controller.h"
#include "rebalance/rebalance_metrics.h"
#include "scheduler-lite/command_flags.h"

namespace carbonroute::scheduler_lite {
namespace {

class RebalanceSubcommand final : public Subcommand {
 public:
  const char* name() const override { return "rebalance"; }
  const char* description() const override {
    return "re-place running Pods toward cleaner Nodes within their limits, by eviction "
           "(CarbonRebalancePolicy)";
  }
  void AddFlags(CLI::App& cmd) override {
    cmd.add_flag("--controller", controller_,
                 "reconcile every CarbonRebalancePolicy of the cluster: evict a Pod of a "
                 "selected workload when another Node it fits, within its delay_<from> limits, "
                 "has been cleaner by more than the policy's tolerance for longer than its "
                 "minStay and the move pays over its horizon (docs/rebalance.md); its "
                 "replacement is placed by the scheduler and carbonroute's extender");
    cmd.add_option("--resync", resync_,
                   "every Pod is weighed again at least this often (also how soon a "
                   "PodDisruptionBudget's refusal is tried again)")
        ->capture_default_str();
    cmd.add_option("--scheduler-name", scheduler_names_,
                   "a schedulerName whose kube-scheduler profile calls carbonroute's extender "
                   "(repeat for several); a workload whose Pod template names another is not "
                   "moved (its replacement would land anywhere)")
        ->capture_default_str();
    cmd.add_option("--in-flight-timeout", in_flight_timeout_,
                   "a move whose replacement is not bound within this is let go (not booked)")
        ->capture_default_str();
    cmd.add_flag("--dry-run", options_.dry_run,
                 "decide as usual but evict nothing: write only Events "
                 "(CarbonRebalanceWouldEvict) and the Lease; the savings ledger books the stays "
                 "the moves would have had (mode=\"shadow\")");
    power_.AddTo(cmd);
    sources_.AddTo(cmd);
    kube_.AddTo(cmd);
    kube_.AddWatchTimeoutTo(cmd);
    lease_.AddTo(cmd);
    daemon_.AddTo(cmd);
  }
  void Validate() override {
    if (!controller_) {
      throw CLI::ValidationError("--controller",
                                 "is required: rebalance runs as a controller over the "
                                 "cluster's CarbonRebalancePolicies");
    }
    options_.resync = DurationFlag(resync_, "--resync");
    options_.in_flight_timeout = DurationFlag(in_flight_timeout_, "--in-flight-timeout");
    options_.extender_profiles.clear();
    for (const std::string& name : scheduler_names_) {
      if (name.empty()) throw CLI::ValidationError("--scheduler-name", "must not be empty");
      options_.extender_profiles.insert(name);
    }
    options_.watch = true;
    options_.watch_timeout = kube_.watch_timeout();
    daemon_.Check();
    lease_.Fill();
  }
  bool WatchesStopSignals() const override { return true; }
  int Run(ProgramContext& c) override;

 private:
  bool controller_ = false;
  std::string resync_ = "30s";
  std::string in_flight_timeout_ = "10m";
  std::vector<std::string> scheduler_names_ = {rebalance::kShippedProfile};
  rebalance::RebalanceControllerOptions options_;
  PowerModelFlags power_;
  SourceFlags sources_;
  KubeFlags kube_;
  LeaseFlags lease_{"carbonroute-rebalance"};
  cli::DaemonFlags daemon_{ControllerDaemonDefaults("127.0.0.1:9469")};
};

int RebalanceSubcommand::Run(ProgramContext& c) {
  const ModelControllerStart start =
      StartModelController(sources_, kube_, daemon_, lease_, "carbonroute-rebalance",
                           "scheduler-lite rebalance --controller", c.http, c.err);
  if (start.manager == nullptr) return start.exit_code;
  rebalance::RebalanceMetrics metrics(start.manager->registry());
  ledger::Ledger ledger(start.manager->registry());
  rebalance::RebalanceControllerOptions options = options_;
  options.power_model = power_.model();
  rebalance::RebalanceController controller(start.manager->wiring(c.clock), std::move(options),
                                            model_sources::LoaderOf(start.sources, c.http), metrics,
                                            &ledger);
  std::vector<std::string> profiles(options_.extender_profiles.begin(),
                                    options_.extender_profiles.end());
  return start.manager->Run(
      controller_runtime::Managed(
          controller,
          "no successful list of the CarbonRebalancePolicies, Nodes, Pods and workloads in the "
          "last three resyncs",
          absl::StrCat(options_.dry_run ? "dry run (evicts nothing, writes only Events): " : "",
                       "re-placing the Pods of CarbonRebalancePolicies on ",
                       start.manager->connection().Describe(), " every ",
                       absl::FormatDuration(options_.resync), " (replacements placed by ",
                       absl::StrJoin(profiles, ", "), ")")),
      c.signals->stop());
}

}  // namespace

std::unique_ptr<Subcommand> NewRebalanceSubcommand() {
  return std::make_unique<RebalanceSubcommand>();
}

}  // namespace carbonroute::scheduler_lite
