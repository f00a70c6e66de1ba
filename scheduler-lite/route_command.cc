#include "scheduler-lite/route_command.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/data_files.h"
#include "base/status_macros.h"
#include "cli/daemon_flags.h"
#include "cli/logging.h"
#include "kube/event_recorder.h"
#include "kube/json_view.h"
#include "kube/kube_client.h"
#include "kube/lease_election.h"
#include "ledger/ledger.h"
#include "model_sources/measured_energy.h"
#include "model_sources/metrics_source.h"
#include "routing/destination_rule_patch.h"
#include "routing/http_route_patch.h"
#include "routing/policy_file.h"
#include "routing/request_demand.h"
#include "routing/route_plan.h"
#include "routing/routing_policy.h"
#include "routing_controller/routing_controller.h"
#include "routing_controller/routing_metrics.h"
#include "scheduler-lite/command_flags.h"

namespace carbonroute::scheduler_lite {
namespace {

class RouteSubcommand final : public Subcommand {
 public:
  const char* name() const override { return "route"; }
  const char* description() const override {
    return "steer requests: the Istio locality weights a CarbonRoutingPolicy would write";
  }
  void AddFlags(CLI::App& cmd) override {
    cmd.add_option("--policy", policy_file_,
                   "one shot: a CarbonRoutingPolicy (YAML or JSON), with the DestinationRules it "
                   "targets if you want them checked, and the HTTPRoutes it targets with their "
                   "backend Services (labelled topology.kubernetes.io/region); its "
                   "spec.localities[] stand for the endpoints");
    cmd.add_option(
           "--format", format_,
           "--policy: yaml, the plan as comments and the patches; json, only the patches (a "
           "merge patch for a DestinationRule, a JSON Patch for an HTTPRoute)")
        ->check(CLI::IsMember({"yaml", "json"}))
        ->capture_default_str();
    cmd.add_flag("--controller", controller_,
                 "keep routing: reconcile every CarbonRoutingPolicy of the cluster (its "
                 "DestinationRules, their Services' EndpointSlices, the Nodes' regions); with "
                 "--prometheus, each origin's demand is the requests Istio measured from its "
                 "clients (istio_requests_total), and each resync books in the savings ledger "
                 "the requests under the weights the rule held against the mesh's default "
                 "(100 % local; docs/savings.md), their energy from the policy's "
                 "spec.joulesPerRequest, else what Kepler or DCGM measured of the Service's "
                 "Pods (the emissions rules' records), shared by the requests");
    resync_option_ =
        cmd.add_option("--resync", resync_,
                       "--controller: every policy is planned again at least this often (an "
                       "intensity change re-weights within it)")
            ->capture_default_str();
    cmd.add_option("--locality-level", level_,
                   "--controller: region (region/*) or zone (region/zone/*) localities")
        ->check(CLI::IsMember({"region", "zone"}))
        ->capture_default_str();
    cmd.add_flag("--dry-run", options_.dry_run,
                 "--controller: decide as usual but write nothing but Events "
                 "(WouldChangeWeights) and the Lease; the savings ledger books what the weights "
                 "it would have written would have saved against what the rule held "
                 "(mode=\"shadow\")");
    sources_.AddTo(cmd);
    kube_.AddTo(cmd);
    kube_.AddWatchTimeoutTo(cmd);
    lease_.AddTo(cmd);
    daemon_.AddTo(cmd);
  }
  void Validate() override {
    if (controller_) {
      if (!policy_file_.empty()) {
        throw CLI::ValidationError("--controller",
                                   "reads its policies from the cluster: drop --policy (the "
                                   "one-shot mode)");
      }
      options_.resync = DurationFlag(resync_, "--resync");
      options_.level =
          level_ == "zone" ? routing::LocalityLevel::kZone : routing::LocalityLevel::kRegion;
      options_.watch = true;
      options_.watch_timeout = kube_.watch_timeout();
      daemon_.Check();
      lease_.Fill();
    } else if (resync_option_->count() > 0) {
      throw CLI::ValidationError("--resync", "is for --controller (the one-shot mode plans once)");
    } else if (options_.dry_run) {
      throw CLI::ValidationError("--dry-run",
                                 "is for --controller (the one-shot mode writes "
                                 "nothing: it prints the patch)");
    } else if (policy_file_.empty()) {
      throw CLI::ValidationError("--policy",
                                 "is required for a one-shot plan (or give --controller)");
    }
  }
  bool WatchesStopSignals() const override { return controller_; }
  int Run(ProgramContext& c) override { return controller_ ? RunController(c) : RunOnce(c); }

 private:
  int RunOnce(ProgramContext& c);
  int RunController(ProgramContext& c);
  // One HTTPRoute target of the one-shot mode: prints its backend weights' JSON patch.
  // Returns the exit code: 0, 2 (what is missing, named) or 3 (no reading).
  int PrintRoutePatch(const routing::RoutingPolicy& policy, const routing::TargetRef& target,
                      const std::map<std::string, std::string>& routes,
                      const std::map<std::string, std::string>& service_regions,
                      const placement::PlacementModel& model, ProgramContext& c);

  std::string policy_file_;
  std::string format_ = "yaml";
  bool controller_ = false;
  std::string resync_ = "1m";
  CLI::Option* resync_option_ = nullptr;
  std::string level_ = "region";
  routing::RoutingControllerOptions options_;
  SourceFlags sources_;
  KubeFlags kube_;
  LeaseFlags lease_{"carbonroute-route"};
  cli::DaemonFlags daemon_{ControllerDaemonDefaults("127.0.0.1:9468")};
};

int RouteSubcommand::RunController(ProgramContext& c) {
  const ModelControllerStart start =
      StartModelController(sources_, kube_, daemon_, lease_, "carbonroute-route",
                           "scheduler-lite route --controller", c.http, c.err);
  if (start.manager == nullptr) return start.exit_code;
  const model_sources::ModelSources& sources = start.sources;
  routing::RoutingMetrics metrics(start.manager->registry());
  ledger::Ledger ledger(start.manager->registry());
  net::HttpClient& http = c.http;
  routing::RoutingControllerOptions options = options_;
  if (!sources.prometheus_url.empty()) {
    options.request_rates = routing::PrometheusRequestRates(http, sources.prometheus_url,
                                                            sources.timeout, sources.auth);
    options.pods_meter =
        model_sources::PrometheusPodsMeter(http, sources.prometheus_url, sources.auth);
  }
  routing::RoutingController controller(start.manager->wiring(c.clock), std::move(options),
                                        model_sources::LoaderOf(sources, http), metrics, &ledger);
  return start.manager->Run(
      controller_runtime::Managed(
          controller,
          "no successful list of the CarbonRoutingPolicies and Nodes in the last three resyncs",
          absl::StrCat(options_.dry_run ? "dry run (writes nothing but Events): " : "",
                       "routing CarbonRoutingPolicies on ", start.manager->connection().Describe(),
                       " every ", absl::FormatDuration(options_.resync))),
      c.signals->stop());
}

int RouteSubcommand::PrintRoutePatch(const routing::RoutingPolicy& policy,
                                     const routing::TargetRef& target,
                                     const std::map<std::string, std::string>& routes,
                                     const std::map<std::string, std::string>& service_regions,
                                     const placement::PlacementModel& model, ProgramContext& c) {
  const std::string what = target.Describe(policy.namespace_name);
  auto usage = [&](const std::string& message) {
    c.err << "scheduler-lite: --policy: " << what << ": " << message << "\n";
    return 2;
  };
  const auto route = routes.find(target.name);
  if (route == routes.end()) {
    return usage(
        "not in the file: offline, give the HTTPRoute and its backend Services (each "
        "labelled topology.kubernetes.io/region) beside the policy");
  }
  if (policy.origins.size() != 1) {
    return usage(
        "an HTTPRoute has one origin, its Gateway's locality: give exactly one in "
        "spec.origins");
  }
  kube::JsonDocument parsed;
  absl::StatusOr<kube::JsonField> root = parsed.Parse(route->second, "HTTPRoute");
  absl::StatusOr<std::vector<routing::Backend>> backends =
      root.ok() ? routing::ReadBackends(*root, policy.namespace_name) : root.status();
  if (!backends.ok()) return usage(std::string(backends.status().message()));
  if (backends->empty()) return usage("it has no Service backend");
  // Offline each backend serves from its Service's region, with that locality's capacity in
  // spec.localities (default 1).
  routing::BackendLocalities per_backend;
  std::map<std::string, double> endpoints;
  for (const routing::Backend& backend : *backends) {
    const auto region = service_regions.find(backend.Key());
    if (region == service_regions.end() || region->second.empty()) {
      return usage(absl::StrCat("backend Service ", backend.Key(),
                                ": give it in the file, labelled ", kube::kRegionLabel,
                                " (offline, where it runs is not known)"));
    }
    const std::string locality = absl::StrCat(region->second, "/*");
    double capacity = 1;
    for (const routing::PolicyLocality& declared : policy.localities) {
      if (declared.locality == locality) capacity = declared.amount.value_or(1);
    }
    per_backend[backend.Key()][locality] = capacity;
  }
  for (const auto& [key, localities] : per_backend) {
    for (const auto& [locality, capacity] : localities) endpoints[locality] += capacity;
  }
  absl::StatusOr<routing::RoutePlan> plan =
      routing::PlanRoutes(policy, endpoints, model, c.clock.Now(), /*endpoints_are_origins=*/false);
  if (!plan.ok()) return usage(std::string(plan.status().message()));
  if (format_ != "json")
    c.out << routing::DescribeFlows(*plan, absl::StrCat(policy.Describe(), " → ", what));
  if (!plan->decided || plan->rows.empty()) {
    c.err << "scheduler-lite: " << what << ": no backend has a current reading ("
          << absl::StrJoin(plan->without_reading, ", ") << "): nothing to write\n";
    return 3;
  }
  absl::StatusOr<std::map<std::string, int64_t>> weights =
      routing::BackendPercents(plan->rows.front(), per_backend);
  if (!weights.ok()) return usage(std::string(weights.status().message()));
  const std::vector<routing::Backend> reweighted = routing::Reweighted(*backends, *weights);
  if (format_ != "json") {
    for (std::size_t i = 0; i < reweighted.size(); ++i) {
      c.out << "# backend " << reweighted[i].Key() << " weight " << (*backends)[i].weight << " → "
            << reweighted[i].weight << "\n";
    }
    c.out << "# kubectl -n " << policy.namespace_name << " patch httproute " << target.name
          << " --type json -p:\n";
  }
  c.out << routing::BackendWeightsPatch(reweighted) << "\n";
  return 0;
}

int RouteSubcommand::RunOnce(ProgramContext& c) {
  absl::StatusOr<std::string> text = ReadFileToString(policy_file_, "policy file");
  if (!text.ok()) {
    c.err << "scheduler-lite: --policy: " << text.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<routing::PolicyFile> file = routing::ReadPolicyFile(*text, policy_file_);
  if (!file.ok()) {
    c.err << "scheduler-lite: --policy: " << file.status().message() << "\n";
    return 2;
  }
  const routing::RoutingPolicy* policy = &file->policy;
  const std::map<std::string, std::string>& rules = file->rules;
  if (!policy->invalid.empty()) {
    c.err << "scheduler-lite: --policy: " << policy->Describe() << ": " << policy->invalid << "\n";
    return 2;
  }
  const bool any_rule = absl::c_any_of(policy->targets, [](const routing::TargetRef& target) {
    return target.kind == routing::TargetKind::kDestinationRule;
  });
  if (any_rule && policy->localities.empty()) {
    c.err << "scheduler-lite: --policy: " << policy->Describe()
          << ": spec.localities: list the localities that serve it (offline, they stand for the "
             "Service's endpoints)\n";
    return 2;
  }
  model_sources::ModelSources sources;
  if (!sources_.Resolve(sources, c.err)) return 1;
  std::shared_ptr<const placement::PlacementModel> model =
      LoadModelOrSay(sources, c.http, c.clock, c.err);
  if (model == nullptr) return 1;
  if (const std::string unknown = routing::UnknownLocalityRegion(*policy, *model);
      !unknown.empty()) {
    c.err << "scheduler-lite: --policy: " << policy->Describe() << ": " << unknown << "\n";
    return 2;
  }
  std::map<std::string, double> endpoints;
  for (const routing::PolicyLocality& locality : policy->localities) {
    endpoints[locality.locality] = locality.amount.value_or(1);
  }
  absl::StatusOr<routing::RoutePlan> plan =
      any_rule ? routing::PlanRoutes(*policy, endpoints, *model, c.clock.Now())
               : absl::StatusOr<routing::RoutePlan>(routing::RoutePlan{.decided = true});
  if (!plan.ok()) {
    c.err << "scheduler-lite: " << policy->Describe() << ": " << plan.status().message() << "\n";
    return 2;
  }
  int exit_code = plan->decided ? 0 : 3;
  for (const routing::TargetRef& target : policy->targets) {
    const std::string what = target.Describe(policy->namespace_name);
    if (target.kind != routing::TargetKind::kDestinationRule) {
      const int route_exit =
          PrintRoutePatch(*policy, target, file->routes, file->service_regions, *model, c);
      // A usage error (2) outranks nothing to write (3).
      exit_code = route_exit == 2 || exit_code == 2 ? 2 : std::max(exit_code, route_exit);
      continue;
    }
    if (const auto rule = rules.find(target.name); rule != rules.end()) {
      kube::JsonDocument parsed;
      absl::StatusOr<kube::JsonField> root = parsed.Parse(rule->second, "DestinationRule");
      if (root.ok()) {
        const routing::RuleCheck check = routing::CheckDestinationRule(*root);
        if (!check.refusal.empty()) {
          c.err << "scheduler-lite: " << what << ": not written (" << check.refusal
                << "): " << check.message << "\n";
          exit_code = 3;
          continue;
        }
      }
    } else {
      c.err << "scheduler-lite: note: " << what
            << " is not in the file: its failover and outlierDetection are not checked\n";
    }
    if (!plan->decided) {
      c.err << "scheduler-lite: " << what << ": no destination has a current reading ("
            << absl::StrJoin(plan->without_reading, ", ") << "): nothing to write\n";
    }
    if (format_ == "json") {
      if (plan->decided) c.out << routing::DistributeMergePatch(plan->setting) << "\n";
    } else {
      c.out << routing::DescribePlan(*plan, absl::StrCat(policy->Describe(), " → ", what));
    }
  }
  return exit_code;
}

}  // namespace

std::unique_ptr<Subcommand> NewRouteSubcommand() { return std::make_unique<RouteSubcommand>(); }

}  // namespace carbonroute::scheduler_lite
