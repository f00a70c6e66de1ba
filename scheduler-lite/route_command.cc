#include "scheduler-lite/route_command.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
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
#include "model_sources/metrics_source.h"
#include "routing/destination_rule_patch.h"
#include "routing/http_route_patch.h"
#include "routing/request_demand.h"
#include "routing/route_plan.h"
#include "routing/routing_controller.h"
#include "routing/routing_metrics.h"
#include "routing/routing_policy.h"
#include "scheduler-lite/command_flags.h"
#include "yaml-cpp/yaml.h"

namespace carbonroute::scheduler_lite {
namespace {

using Json = nlohmann::json;

// A YAML node as JSON, plain scalars typed by YAML 1.2's core schema (null,
// booleans, integers, floats; the rest strings); a quoted scalar stays a string.
Json YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json object = Json::object();
      for (const auto& entry : node) object[entry.first.Scalar()] = YamlToJson(entry.second);
      return object;
    }
    case YAML::NodeType::Sequence: {
      Json array = Json::array();
      for (const YAML::Node& element : node) array.push_back(YamlToJson(element));
      return array;
    }
    case YAML::NodeType::Scalar: {
      const std::string& text = node.Scalar();
      if (node.Tag() == "!") return text;  // quoted
      if (text == "null" || text == "~") return nullptr;
      if (text == "true" || text == "false") return text == "true";
      int64_t whole = 0;
      if (absl::SimpleAtoi(text, &whole)) return whole;
      double number = 0;
      if (text.find_first_of("0123456789") != std::string::npos &&
          text.find_first_not_of("0123456789+-.eE") == std::string::npos &&
          absl::SimpleAtod(text, &number)) {
        return number;
      }
      return text;
    }
    default:
      return nullptr;
  }
}

// Every document of `text`: YAML (JSON is YAML too).
absl::StatusOr<std::vector<Json>> ReadDocuments(const std::string& text, const std::string& path) {
  std::vector<Json> documents;
  try {
    for (const YAML::Node& document : YAML::LoadAll(text)) {
      if (document.IsNull()) continue;
      documents.push_back(YamlToJson(document));
    }
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not YAML: ", e.what()));
  }
  return documents;
}

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
    cmd.add_option("--format", format_,
                   "--policy: yaml, the plan as comments and the patch; json, only the merge patch")
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
  std::string level_ = "region";
  routing::RoutingControllerOptions options_;
  SourceFlags sources_;
  KubeFlags kube_;
  LeaseFlags lease_{"carbonroute-route"};
  cli::DaemonFlags daemon_{
      {.listen_address = "127.0.0.1:9468", .served = "--controller's /metrics and /healthz"}};
};

int RouteSubcommand::RunController(ProgramContext& c) {
  const net::WebConfig& web = daemon_.web();
  const std::string& listen = daemon_.listen_address();
  model_sources::ModelSources sources;
  if (!sources_.Resolve(sources, c.err)) return 1;
  kube::KubeConnection connection;
  if (!kube_.Resolve(connection, c.err)) return 2;
  cli::InstallLogger(daemon_.log_format(), daemon_.log_level().value_or(LogLevel::kInfo));
  ControllerKit kit(connection, c.http, lease_, "carbonroute-route");
  routing::RoutingMetrics metrics(*kit.registry);
  ledger::Ledger ledger(*kit.registry);
  net::HttpClient& http = c.http;
  routing::RoutingControllerOptions options = options_;
  if (!sources.prometheus_url.empty()) {
    options.request_rates =
        [&sources,
         &http](const routing::ServiceRef& service) -> absl::StatusOr<routing::ClientRates> {
      std::vector<model_sources::Sample> samples;
      CARBONROUTE_RETURN_IF_ERROR(model_sources::QueryInstant(
          http, sources.prometheus_url, routing::RequestRateQuery(service), sources.timeout,
          sources.auth, samples));
      return routing::ReadClientRates(samples);
    };
    options.pods_meter = PrometheusPodsMeter(http, sources.prometheus_url, sources.auth);
  }
  routing::RoutingController controller(
      std::move(options), kit.api,
      [&sources, &http](absl::Time now) { return model_sources::LoadModel(sources, http, now); },
      c.clock, metrics, kit.lease(), &kit.events, &ledger);
  return ServeController(
      {.title = "scheduler-lite route --controller",
       .registry = kit.registry,
       .healthy = [&controller] { return controller.healthy(); },
       .turning = [&controller] { return controller.turning(); },
       .unhealthy = "no successful list of the CarbonRoutingPolicies and Nodes in the last three "
                    "resyncs",
       .started = absl::StrCat(options_.dry_run ? "dry run (writes nothing but Events): " : "",
                               "routing CarbonRoutingPolicies on ", connection.Describe(),
                               " every ", absl::FormatDuration(options_.resync)),
       .lease_said = lease_.Describe(),
       .run = [&controller](absl::Notification& stop) { controller.Run(stop); }},
      listen, web, c.signals->stop());
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
  absl::StatusOr<std::vector<Json>> documents = ReadDocuments(*text, policy_file_);
  if (!documents.ok()) {
    c.err << "scheduler-lite: --policy: " << documents.status().message() << "\n";
    return 2;
  }
  std::optional<routing::RoutingPolicy> policy;
  std::map<std::string, std::string> rules;            // DestinationRule name → its JSON
  std::map<std::string, std::string> routes;           // HTTPRoute name → its JSON
  std::map<std::string, std::string> service_regions;  // "namespace/name" → its region label
  for (const Json& document : *documents) {
    const std::string kind = document.is_object() ? document.value("kind", "") : "";
    if ((kind == "DestinationRule" || kind == "HTTPRoute") && document.contains("metadata")) {
      (kind == "HTTPRoute" ? routes : rules)[document["metadata"].value("name", "")] =
          document.dump();
      continue;
    }
    if (kind == "Service" && document.contains("metadata")) {
      const Json& metadata = document["metadata"];
      const Json labels = metadata.value("labels", Json::object());
      service_regions[absl::StrCat(metadata.value("namespace", ""), "/",
                                   metadata.value("name", ""))] =
          labels.is_object() ? labels.value(kube::kRegionLabel, "") : "";
      continue;
    }
    if (kind != routing::kPolicyKind) continue;
    if (policy) {
      c.err << "scheduler-lite: --policy: " << policy_file_
            << ": more than one CarbonRoutingPolicy (give one per run)\n";
      return 2;
    }
    kube::JsonDocument parsed;
    absl::StatusOr<kube::JsonField> root = parsed.Parse(document.dump(), routing::kPolicyKind);
    absl::StatusOr<routing::RoutingPolicy> read =
        root.ok() ? routing::ReadRoutingPolicy(*root) : root.status();
    if (!read.ok()) {
      c.err << "scheduler-lite: --policy: " << policy_file_ << ": " << read.status().message()
            << "\n";
      return 2;
    }
    policy = *std::move(read);
  }
  if (!policy) {
    c.err << "scheduler-lite: --policy: " << policy_file_
          << ": no document of kind CarbonRoutingPolicy\n";
    return 2;
  }
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
      const int route_exit = PrintRoutePatch(*policy, target, routes, service_regions, *model, c);
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
