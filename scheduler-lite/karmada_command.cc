#include "scheduler-lite/karmada_command.h"

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "base/data_files.h"
#include "base/log_line.h"
#include "cli/daemon_flags.h"
#include "cli/logging.h"
#include "karmada/karmada_controller.h"
#include "karmada/karmada_metrics.h"
#include "karmada/karmada_patch.h"
#include "kube/event_recorder.h"
#include "kube/kube_client.h"
#include "kube/lease_election.h"
#include "ledger/ledger.h"
#include "net/url.h"
#include "placement/candidate_names.h"
#include "prometheus/registry.h"
#include "scheduler-lite/command_flags.h"

namespace carbonroute::scheduler_lite {

using karmada::KarmadaPatch;
using karmada::KarmadaPolicy;
using karmada::MakeKarmadaPatch;
using karmada::ParseKarmadaPolicy;
using placement::PlacementModel;
using placement::ScoreCandidates;
using placement::ScoredCandidate;
using placement::ScoringOptions;
using placement::Workload;

namespace {

class KarmadaSubcommand final : public Subcommand {
 public:
  const char* name() const override { return "karmada"; }
  const char* description() const override {
    return "place Karmada policies on the cleanest member clusters: a patch, or --controller";
  }
  void AddFlags(CLI::App& cmd) override {
    sources_.AddTo(cmd);
    cmd.add_option("--policy", request_.policy_file,
                   "one-shot: policy file: propagationPolicy, clusters, desiredClusters "
                   "(deploy/karmada/carbonroute-placement.yaml), or a CarbonAwareKarmadaPolicy "
                   "or a CarbonPlacementPolicy with spec.clusters and none of the controller's "
                   "fields (latency limit, stickiness, replicaWeights)");
    cmd.add_option("--runtime", runtime_, "expected runtime (e.g. 2h): scores by the forecast");
    cmd.add_flag("--apply", request_.apply,
                 "one-shot: merge-patch the PropagationPolicy through the Karmada API server "
                 "(the --kubeconfig flags: e.g. --kubeconfig karmada-apiserver.config)");
    cmd.add_flag("--controller", controller_,
                 "keep placing: reconcile every CarbonAwareKarmadaPolicy and "
                 "CarbonPlacementPolicy on the Karmada API server (README \"Karmada\"); each "
                 "resync books in the savings ledger what ran against the replicas in equal "
                 "shares over every listed cluster (docs/savings.md)");
    resync_option_ =
        cmd.add_option(
               "--resync", resync_,
               "--controller: every policy is ranked again at least this often (and at once "
               "when a policy or its target changes)")
            ->capture_default_str();
    cmd.add_flag("--dry-run", options_.dry_run,
                 "--controller: decide as usual but write nothing but Events (\"would place on "
                 "...\") and the Lease; the savings ledger books what it would have saved "
                 "against what ran (mode=\"shadow\")");
    power_.AddTo(cmd);
    lease_.AddTo(cmd);
    daemon_.AddTo(cmd);
    kube_.AddTo(cmd);
    kube_.AddWatchTimeoutTo(cmd);
  }
  void Validate() override {
    if (!runtime_.empty()) request_.runtime = DurationFlag(runtime_, "--runtime");
    if (controller_) {
      if (!request_.policy_file.empty() || request_.apply) {
        throw CLI::ValidationError(
            "--controller",
            "reads its policies from the Karmada API server: drop --policy and "
            "--apply (they are the one-shot mode)");
      }
      options_.resync = DurationFlag(resync_, "--resync");
      options_.power_model = power_.model();
      options_.expected_runtime = request_.runtime;
      options_.watch = true;
      options_.watch_timeout = kube_.watch_timeout();
      daemon_.Check();
      lease_.Fill();
    } else if (resync_option_->count() > 0) {
      throw CLI::ValidationError("--resync", "is for --controller (the one-shot mode plans once)");
    } else if (options_.dry_run) {
      throw CLI::ValidationError("--dry-run",
                                 "is for --controller (the one-shot mode writes only with --apply: "
                                 "leave --apply out to see the patch without writing it)");
    } else if (request_.policy_file.empty()) {
      throw CLI::ValidationError("--policy",
                                 "is required for a one-shot patch (or give --controller)");
    }
  }
  bool WatchesStopSignals() const override { return controller_; }
  int Run(ProgramContext& c) override {
    if (controller_) return RunController(c);
    if (!sources_.Resolve(request_.sources, c.err)) return 1;
    if (request_.apply) {
      kube::KubeConnection connection;
      if (!kube_.Resolve(connection, c.err)) return kube_.ResolveExitCode();
      request_.kube = std::move(connection);
    }
    return KarmadaCommand(request_, c.http, c.clock, c.out, c.err);
  }

 private:
  int RunController(ProgramContext& c);

  SourceFlags sources_;
  KubeFlags kube_;
  KarmadaRequest request_;
  std::string runtime_;
  bool controller_ = false;
  std::string resync_ = "5m";
  CLI::Option* resync_option_ = nullptr;
  karmada::KarmadaControllerOptions options_;
  LeaseFlags lease_{"carbonroute-karmada"};
  PowerModelFlags power_;
  cli::DaemonFlags daemon_{ControllerDaemonDefaults("127.0.0.1:9467")};
};

int KarmadaSubcommand::RunController(ProgramContext& c) {
  const ModelControllerStart start =
      StartModelController(sources_, kube_, daemon_, lease_, "carbonroute-karmada",
                           "scheduler-lite karmada --controller", c.http, c.err);
  if (start.manager == nullptr) return start.exit_code;
  karmada::KarmadaMetrics metrics(start.manager->registry());
  ledger::Ledger ledger(start.manager->registry());
  karmada::KarmadaController controller(options_, start.manager->wiring(c.clock),
                                        model_sources::LoaderOf(start.sources, c.http), metrics,
                                        &ledger);
  return start.manager->Run(
      controller_runtime::Managed(
          controller, "no successful list of the Karmada policies in the last three resyncs",
          absl::StrCat(options_.dry_run ? "dry run (writes nothing but Events): " : "",
                       "placing Karmada policies on ", start.manager->connection().Describe(),
                       " every ", absl::FormatDuration(options_.resync))),
      c.signals->stop());
}

}  // namespace

int KarmadaCommand(const KarmadaRequest& request, net::HttpClient& http, Clock& clock,
                   std::ostream& out, std::ostream& err) {
  absl::StatusOr<std::string> text = ReadFileToString(request.policy_file, "policy file");
  if (!text.ok()) {
    err << "scheduler-lite: " << text.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<KarmadaPolicy> policy = ParseKarmadaPolicy(*text, request.policy_file);
  if (!policy.ok()) {
    err << "scheduler-lite: " << policy.status().message() << "\n";
    return 2;
  }
  std::shared_ptr<const PlacementModel> model = LoadModelOrSay(request.sources, http, clock, err);
  if (model == nullptr) return 1;
  // A cluster's region or location must be one the model knows, as for rank (exit 2, never a
  // patch placing work on a name nobody knows); letter case is corrected with a note.
  for (placement::Candidate& cluster : policy->clusters) {
    const bool by_region = !cluster.region.empty();
    absl::StatusOr<placement::ResolvedNames> known =
        placement::ResolveNames(*model, by_region ? "regions" : "locations",
                                {by_region ? cluster.region : cluster.location});
    if (!known.ok()) {
      err << "scheduler-lite: " << request.policy_file << ": cluster " << cluster.name << ": "
          << known.status().message() << "\n";
      return 2;
    }
    for (const std::string& note : known->notes) err << "scheduler-lite: note: " << note << "\n";
    (by_region ? cluster.region : cluster.location) = known->names.front();
  }
  Workload workload;
  workload.expected_runtime = request.runtime;
  ScoringOptions options;
  options.now = clock.Now();
  const std::vector<ScoredCandidate> scored =
      ScoreCandidates(*model, policy->clusters, workload, options);
  const KarmadaPatch patch = MakeKarmadaPatch(*policy, scored, options.now);
  out << patch.yaml;
  if (patch.cluster_names.empty()) return 3;
  if (!request.apply || !request.kube) return 0;
  const kube::KubeClient client(*request.kube, http);
  const absl::StatusOr<std::string> patched =
      client.Patch(absl::StrCat("/apis/policy.karmada.io/v1alpha1/namespaces/",
                                net::UrlEncode(policy->namespace_name), "/propagationpolicies/",
                                net::UrlEncode(policy->name)),
                   kube::kMergePatch, patch.json);
  if (!patched.ok()) {
    err << "scheduler-lite: " << patched.status().message() << "\n";
    return 1;
  }
  err << "scheduler-lite: patched PropagationPolicy " << policy->namespace_name << "/"
      << policy->name << " on " << request.kube->Describe() << "\n";
  return 0;
}

std::unique_ptr<Subcommand> NewKarmadaSubcommand() { return std::make_unique<KarmadaSubcommand>(); }

}  // namespace carbonroute::scheduler_lite
