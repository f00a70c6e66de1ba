#include "scheduler-lite/route_command.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/data_files.h"
#include "cli/daemon_flags.h"
#include "cli/logging.h"
#include "kube/event_recorder.h"
#include "kube/json_view.h"
#include "kube/kube_client.h"
#include "kube/lease_election.h"
#include "routing/destination_rule_patch.h"
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
                   "targets if you want them checked; its spec.localities[] stand for the "
                   "endpoints");
    cmd.add_option("--format", format_,
                   "--policy: yaml, the plan as comments and the patch; json, only the merge patch")
        ->check(CLI::IsMember({"yaml", "json"}))
        ->capture_default_str();
    cmd.add_flag("--controller", controller_,
                 "keep routing: reconcile every CarbonRoutingPolicy of the cluster (its "
                 "DestinationRules, their Services' EndpointSlices, the Nodes' regions)");
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
                 "(WouldChangeWeights) and the Lease");
    sources_.AddTo(cmd);
    kube_.AddTo(cmd);
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
  net::HttpClient& http = c.http;
  routing::RoutingController controller(
      options_, kit.api,
      [&sources, &http](absl::Time now) { return model_sources::LoadModel(sources, http, now); },
      c.clock, metrics, kit.lease(), &kit.events);
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
  std::map<std::string, std::string> rules;  // DestinationRule name → its JSON
  for (const Json& document : *documents) {
    const std::string kind = document.is_object() ? document.value("kind", "") : "";
    if (kind == "DestinationRule" && document.contains("metadata")) {
      rules[document["metadata"].value("name", "")] = document.dump();
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
  if (policy->localities.empty()) {
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
      routing::PlanRoutes(*policy, endpoints, *model, c.clock.Now());
  if (!plan.ok()) {
    c.err << "scheduler-lite: " << policy->Describe() << ": " << plan.status().message() << "\n";
    return 2;
  }
  int exit_code = plan->decided ? 0 : 3;
  for (const routing::TargetRef& target : policy->targets) {
    const std::string what = target.Describe(policy->namespace_name);
    if (target.kind != routing::TargetKind::kDestinationRule) {
      c.err << "scheduler-lite: note: " << what
            << ": an HTTPRoute's backends are weighted by route --controller (it reads where "
               "each backend's endpoints are); skipped\n";
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
