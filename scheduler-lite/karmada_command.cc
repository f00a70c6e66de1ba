#include "scheduler-lite/karmada_command.h"

#include "absl/strings/str_cat.h"
#include "base/data_files.h"
#include "kube/kube_client.h"
#include "net/url.h"
#include "scheduler-lite/command_flags.h"
#include "scheduler-lite/karmada_patch.h"

namespace carbonroute::scheduler_lite {

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
    return "PropagationPolicy clusterNames patch for the N cleanest clusters";
  }
  void AddFlags(CLI::App& cmd) override {
    sources_.AddTo(cmd);
    cmd.add_option("--policy", request_.policy_file,
                   "policy file: propagationPolicy, clusters, desiredClusters")
        ->required();
    cmd.add_option("--runtime", runtime_, "expected runtime (e.g. 2h)");
    cmd.add_flag("--apply", request_.apply,
                 "merge-patch the PropagationPolicy through the Karmada API server (the "
                 "--kubeconfig flags: e.g. --kubeconfig karmada-apiserver.config)");
    kube_.AddTo(cmd);
  }
  void Validate() override {
    if (!runtime_.empty()) request_.runtime = DurationFlag(runtime_, "--runtime");
  }
  int Run(ProgramContext& c) override {
    if (!sources_.Resolve(request_.sources, c.err)) return 1;
    if (request_.apply) {
      kube::KubeConnection connection;
      if (!kube_.Resolve(connection, c.err)) return 2;
      request_.kube = std::move(connection);
    }
    return KarmadaCommand(request_, c.http, c.clock, c.out, c.err);
  }

 private:
  SourceFlags sources_;
  KubeFlags kube_;
  KarmadaRequest request_;
  std::string runtime_;
};

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
