#include "routing/routing_controller.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/utc_time.h"
#include "net/url.h"
#include "routing/destination_rule_patch.h"
#include "routing/http_route_patch.h"
#include "routing/route_plan.h"
#include "routing/row_stability.h"

namespace carbonroute::routing {
namespace {

using JsonValue = nlohmann::json;

constexpr char kPoliciesPath[] = "/apis/carbonroute.io/v1alpha1/carbonroutingpolicies";
constexpr char kNodesPath[] = "/api/v1/nodes";
constexpr const char* kConditionTypes[] = {"Ready", "DataMissing", "TargetNotFound",
                                           "FailoverConfigured", "OutlierDetectionMissing"};

std::string PolicyPath(const RoutingPolicy& policy) {
  return absl::StrCat("/apis/", kPolicyGroupVersion, "/namespaces/",
                      net::UrlEncode(policy.namespace_name), "/", kPolicyPlural, "/",
                      net::UrlEncode(policy.name));
}

std::string RulePath(const std::string& ns, const std::string& name) {
  return absl::StrCat("/apis/networking.istio.io/v1/namespaces/", net::UrlEncode(ns),
                      "/destinationrules/", net::UrlEncode(name));
}

}  // namespace

struct RoutingController::Outcome {
  TargetRef target;
  std::string result;  // kRoutingWrites' result
  std::string reason;  // a condition's reason; "" when written or unchanged
  std::string message;
  std::optional<RoutePlan> plan;
};

RoutingController::RoutingController(RoutingControllerOptions options, const kube::KubeClient& api,
                                     RoutingModelLoader load_model, Clock& clock,
                                     RoutingMetrics& metrics, kube::LeaseElection* lease,
                                     const kube::EventRecorder* events)
    : options_(options),
      api_(api),
      load_model_(std::move(load_model)),
      metrics_(metrics),
      events_(events),
      loop_(
          [&options] {
            kube::ControllerLoopOptions loop{.resync = options.resync};
            if (options.watch) loop.watched.push_back({kPoliciesPath, "CarbonRoutingPolicyList"});
            return loop;
          }(),
          api, clock, *this, lease) {}

absl::StatusOr<kube::ListedVersions> RoutingController::List(absl::Time /*now*/) {
  std::vector<RoutingPolicy> policies;
  kube::ListedVersions versions;
  absl::StatusOr<kube::ListResult> listed = kube::ListAll(
      api_, {.path = kPoliciesPath, .list_kind = "CarbonRoutingPolicyList"},
      [&](const kube::JsonField& item) {
        absl::StatusOr<RoutingPolicy> policy = ReadRoutingPolicy(item);
        if (!policy.ok()) return policy.status();
        policies.push_back(*std::move(policy));
        return absl::OkStatus();
      },
      [&] { policies.clear(); });
  if (listed.ok()) {
    versions[kPoliciesPath] = listed->resource_version;
  } else if (absl::IsNotFound(listed.status())) {
    if (!crd_absent_said_) {
      crd_absent_said_ = true;
      spdlog::info("route: the CarbonRoutingPolicy CRD is not installed: no policies");
    }
  } else {
    metrics_.Error("list");
    spdlog::warn(absl::StrCat("route: listing CarbonRoutingPolicies: ", listed.status().message()));
    return listed.status();
  }
  std::map<std::string, kube::KubeNode> nodes;
  absl::StatusOr<kube::ListResult> nodes_listed = kube::ListAll(
      api_, {.path = kNodesPath, .list_kind = "NodeList"},
      [&](const kube::JsonField& item) {
        kube::KubeNode node;
        if (absl::Status read = kube::ReadNode(item, node); !read.ok()) return read;
        nodes[node.name] = node;
        return absl::OkStatus();
      },
      [&] { nodes.clear(); });
  if (!nodes_listed.ok()) {
    metrics_.Error("list");
    spdlog::warn(absl::StrCat("route: listing Nodes: ", nodes_listed.status().message()));
    return nodes_listed.status();
  }
  policies_ = std::move(policies);
  nodes_ = std::move(nodes);
  return versions;
}

void RoutingController::Event(const RoutingPolicy& policy, kube::EventType type,
                              const std::string& reason, const std::string& message,
                              absl::Time now) {
  if (events_ == nullptr) return;
  const absl::Status recorded = events_->Record(
      {kPolicyGroupVersion, kPolicyKind, policy.namespace_name, policy.name, policy.uid}, type,
      reason, message, now);
  if (!recorded.ok()) {
    metrics_.Error("event");
    spdlog::warn(absl::StrCat("route: an Event on ", policy.Describe(), ": ", recorded.message()));
  }
}

RoutingController::Outcome RoutingController::Refuse(Outcome outcome, const std::string& what,
                                                     std::string result, std::string reason,
                                                     const std::string& message) {
  outcome.result = std::move(result);
  outcome.reason = std::move(reason);
  outcome.message = absl::StrCat(what, ": ", message);
  return outcome;
}

RoutingController::Outcome RoutingController::RefuseGet(Outcome outcome, const std::string& what,
                                                        const absl::Status& status) {
  if (absl::IsNotFound(status)) {
    return Refuse(std::move(outcome), what, "target_not_found", "TargetNotFound", "not found");
  }
  metrics_.Error("get");
  return Refuse(std::move(outcome), what, "error", "Error", std::string(status.message()));
}

RoutingController::Outcome RoutingController::WriteTarget(
    Outcome outcome, const std::string& what, const RoutingPolicy& policy, const std::string& path,
    absl::string_view content_type, std::string body, const std::string& change, absl::Time now) {
  if (options_.dry_run) {
    Event(policy, kube::EventType::kNormal, "WouldChangeWeights", change, now);
    outcome.result = "unchanged";
    return outcome;
  }
  absl::StatusOr<std::string> patched = api_.Patch(path, content_type, std::move(body));
  if (!patched.ok()) {
    metrics_.Error("patch");
    return Refuse(std::move(outcome), what, "error", "Error",
                  std::string(patched.status().message()));
  }
  spdlog::info(absl::StrCat("route: ", change));
  Event(policy, kube::EventType::kNormal, "WeightsChanged", change, now);
  outcome.result = "written";
  return outcome;
}

absl::StatusOr<EndpointCount> RoutingController::CountServiceEndpoints(const ServiceRef& service) {
  EndpointCount count;
  absl::StatusOr<kube::ListResult> slices = kube::ListAll(
      api_,
      {.path = EndpointSlicesPath(service),
       .list_kind = "EndpointSliceList",
       .label_selector = absl::StrCat(kServiceNameLabel, "=", service.name)},
      [&](const kube::JsonField& slice) {
        return CountEndpoints(slice, nodes_, options_.level, count);
      },
      [&] { count = {}; });
  if (!slices.ok()) {
    metrics_.Error("list");
    return absl::Status(slices.status().code(),
                        absl::StrCat("EndpointSlices of ", service.namespace_name, "/",
                                     service.name, ": ", slices.status().message()));
  }
  return count;
}

RoutingController::Outcome RoutingController::ReconcileRoute(const RoutingPolicy& policy,
                                                             const TargetRef& target,
                                                             const placement::PlacementModel& model,
                                                             absl::Time now) {
  Outcome outcome{.target = target};
  const std::string what = target.Describe(policy.namespace_name);
  auto refuse = [&](std::string result, std::string reason, const std::string& message) {
    return Refuse(outcome, what, std::move(result), std::move(reason), message);
  };
  if (policy.origins.size() != 1) {
    return refuse("invalid", "Invalid",
                  "an HTTPRoute has one origin, its Gateway's locality: give exactly one in "
                  "spec.origins");
  }
  const std::string path = absl::StrCat("/apis/gateway.networking.k8s.io/v1/namespaces/",
                                        net::UrlEncode(policy.namespace_name), "/httproutes/",
                                        net::UrlEncode(target.name));
  absl::StatusOr<std::string> body = api_.Get(path);
  if (!body.ok()) return RefuseGet(outcome, what, body.status());
  kube::JsonDocument document;
  absl::StatusOr<kube::JsonField> route = document.Parse(*body, "HTTPRoute");
  absl::StatusOr<std::vector<Backend>> backends =
      route.ok() ? ReadBackends(*route, policy.namespace_name) : route.status();
  if (!backends.ok()) return refuse("invalid", "Invalid", std::string(backends.status().message()));
  if (backends->empty()) return refuse("invalid", "Invalid", "it has no Service backend");
  // Each backend Service's ready endpoints per locality: all in its region when the Service is
  // labelled with one (topology.kubernetes.io/region), else where its endpoints' Nodes are.
  std::map<std::string, std::map<std::string, double>> per_backend;
  std::map<std::string, double> endpoints;
  for (const Backend& backend : *backends) {
    if (per_backend.contains(backend.Key())) continue;
    const ServiceRef service{.namespace_name = backend.namespace_name, .name = backend.name};
    absl::StatusOr<EndpointCount> count = CountServiceEndpoints(service);
    if (!count.ok()) return refuse("error", "Error", std::string(count.status().message()));
    absl::StatusOr<std::string> service_body =
        api_.Get(absl::StrCat("/api/v1/namespaces/", net::UrlEncode(service.namespace_name),
                              "/services/", net::UrlEncode(service.name)));
    std::string region;
    if (service_body.ok()) {
      kube::JsonDocument service_document;
      if (absl::StatusOr<kube::JsonField> object = service_document.Parse(*service_body, "Service");
          object.ok()) {
        region = (*object)["metadata"]["labels"][kube::kRegionLabel].OptionalString().value_or("");
      }
    }
    std::map<std::string, double>& mine = per_backend[backend.Key()];
    if (!region.empty()) {
      double total = count->unlocated;
      for (const auto& [locality, n] : count->by_locality) total += n;
      mine[absl::StrCat(region, "/*")] = total;
    } else {
      mine = count->by_locality;
    }
    for (const auto& [locality, n] : mine) endpoints[locality] += n;
  }
  absl::StatusOr<RoutePlan> plan =
      PlanRoutes(policy, endpoints, model, now, /*endpoints_are_origins=*/false);
  if (!plan.ok()) return refuse("invalid", "Invalid", std::string(plan.status().message()));
  outcome.plan = *std::move(plan);
  if (!outcome.plan->decided || outcome.plan->rows.empty()) {
    return refuse("data_missing", "DataMissing",
                  absl::StrCat("no backend has a current reading (",
                               absl::StrJoin(outcome.plan->without_reading, ", "),
                               "): the route is kept as it is"));
  }
  // The origin's share of each locality, split over its backends by their endpoints.
  const RouteRow& row = outcome.plan->rows.front();
  std::vector<DestinationShare> shares;
  for (const auto& [key, localities] : per_backend) {
    DestinationShare share{.locality = key};
    for (const auto& [locality, n] : localities) {
      for (const RouteFlow& flow : row.flows) {
        if (flow.destination != locality || endpoints[locality] <= 0) continue;
        share.share += flow.share * n / endpoints[locality];
        if (flow.rtt) share.rtt = std::min(share.rtt, *flow.rtt);
      }
    }
    shares.push_back(std::move(share));
  }
  absl::StatusOr<std::vector<LocalityWeight>> percents = PercentWeights(shares);
  if (!percents.ok()) return refuse("invalid", "Invalid", std::string(percents.status().message()));
  std::map<std::string, int64_t> weights;
  for (const LocalityWeight& weight : *percents) weights[weight.locality] = weight.percent;
  const std::vector<Backend> reweighted = Reweighted(*backends, weights);
  std::vector<std::string> changes;
  for (std::size_t i = 0; i < reweighted.size(); ++i) {
    if (reweighted[i].weight != (*backends)[i].weight) {
      changes.push_back(absl::StrCat(reweighted[i].Key(), " ", (*backends)[i].weight, " → ",
                                     reweighted[i].weight));
    }
  }
  metrics_.SetWeights(policy, absl::StrCat("HTTPRoute/", target.name), *outcome.plan);
  if (changes.empty()) {
    outcome.result = "unchanged";
    return outcome;
  }
  const std::string change = absl::StrCat(what, ": ", absl::StrJoin(changes, ", "));
  return WriteTarget(std::move(outcome), what, policy, path, kube::kJsonPatch,
                     BackendWeightsPatch(reweighted), change, now);
}

RoutingController::Outcome RoutingController::ReconcileTarget(
    const RoutingPolicy& policy, const TargetRef& target, const placement::PlacementModel& model,
    absl::Time now) {
  Outcome outcome{.target = target};
  const std::string what = target.Describe(policy.namespace_name);
  auto refuse = [&](std::string result, std::string reason, const std::string& message) {
    return Refuse(outcome, what, std::move(result), std::move(reason), message);
  };
  if (target.kind == TargetKind::kHttpRoute) return ReconcileRoute(policy, target, model, now);
  const std::string path = RulePath(policy.namespace_name, target.name);
  absl::StatusOr<std::string> body = api_.Get(path);
  if (!body.ok()) return RefuseGet(outcome, what, body.status());
  kube::JsonDocument document;
  absl::StatusOr<kube::JsonField> rule = document.Parse(*body, "DestinationRule");
  if (!rule.ok()) return refuse("error", "Error", std::string(rule.status().message()));
  const RuleCheck check = CheckDestinationRule(*rule);
  if (check.refusal == kFailoverConfigured) {
    return refuse("failover_configured", check.refusal, check.message);
  }
  if (check.refusal == kOutlierDetectionMissing) {
    return refuse("outlier_detection_missing", check.refusal, check.message);
  }
  absl::StatusOr<ServiceRef> service = ServiceOfHost(check.host, policy.namespace_name);
  if (!service.ok())
    return refuse("invalid", "InvalidTarget", std::string(service.status().message()));
  absl::StatusOr<EndpointCount> counted = CountServiceEndpoints(*service);
  if (!counted.ok()) return refuse("error", "Error", std::string(counted.status().message()));
  const EndpointCount& count = *counted;
  if (count.unlocated > 0) {
    spdlog::warn(absl::StrCat("route: ", what, ": ", count.unlocated,
                              " ready endpoints are on Nodes without a known region: left out"));
  }
  if (count.by_locality.empty() && policy.localities.empty()) {
    return refuse("data_missing", "NoEndpoints",
                  absl::StrCat("the Service ", service->namespace_name, "/", service->name,
                               " has no ready endpoint on a Node with a region: the rule is kept "
                               "as it is"));
  }
  absl::StatusOr<RoutePlan> plan = PlanRoutes(policy, count.by_locality, model, now);
  if (!plan.ok()) return refuse("invalid", "Invalid", std::string(plan.status().message()));
  outcome.plan = *std::move(plan);
  if (!outcome.plan->decided) {
    return refuse("data_missing", "DataMissing",
                  absl::StrCat("no destination has a current reading (",
                               absl::StrJoin(outcome.plan->without_reading, ", "),
                               "): the rule is kept as it is"));
  }
  // Against flapping: a held row stays within minStay or the tolerance (routing/row_stability.h).
  RoutePlan& plan_made = *outcome.plan;
  plan_made.setting.distribute =
      StableRows(check.held, plan_made, policy.carbon_tolerance, policy.min_stay, now,
                 row_changed_[absl::StrCat(policy.uid, "/", target.name)]);
  metrics_.SetWeights(policy, absl::StrCat("DestinationRule/", target.name), plan_made);
  const std::vector<DistributeRow>& planned = plan_made.setting.distribute;
  if (SameRows(check.held, planned)) {
    outcome.result = "unchanged";
    return outcome;
  }
  // The first write keeps what the rule held, for the finalizer to put back.
  std::string patch =
      DistributeMergePatch(plan_made.setting, check.original.empty() ? check.setting_json : "",
                           absl::StrCat(policy.namespace_name, "/", policy.name));
  const std::string change =
      absl::StrCat(what, ": ", DescribeRows(check.held), " ⇒ ", DescribeRows(planned));
  return WriteTarget(std::move(outcome), what, policy, path, kube::kMergePatch, std::move(patch),
                     change, now);
}

void RoutingController::WriteStatus(const RoutingPolicy& policy,
                                    const std::vector<Outcome>& outcomes, absl::Time now) {
  JsonValue targets = JsonValue::array();
  std::map<std::string, std::pair<bool, std::string>> conditions;  // type → {true?, message}
  std::string first_problem, first_message;
  for (const Outcome& outcome : outcomes) {
    JsonValue target = {
        {"kind",
         outcome.target.kind == TargetKind::kDestinationRule ? "DestinationRule" : "HTTPRoute"},
        {"name", outcome.target.name}};
    if (outcome.plan && outcome.plan->decided) {
      JsonValue origins = JsonValue::array();
      for (const RouteRow& row : outcome.plan->rows) {
        JsonValue to = JsonValue::array();
        for (const RouteFlow& flow : row.flows) {
          JsonValue entry = {{"locality", flow.destination},
                             {"weight", outcome.plan->WeightOf(row.origin, flow.destination)}};
          if (flow.grams_per_kwh) entry["carbonIntensity"] = *flow.grams_per_kwh;
          if (flow.rtt) entry["rttMs"] = absl::ToDoubleMilliseconds(*flow.rtt);
          entry["reason"] = flow.reason;
          to.push_back(std::move(entry));
        }
        origins.push_back({{"from", row.origin}, {"to", std::move(to)}});
      }
      target["origins"] = std::move(origins);
    }
    targets.push_back(std::move(target));
    if (!outcome.reason.empty()) {
      auto& [set, message] = conditions[outcome.reason];
      set = true;
      message = message.empty() ? outcome.message : absl::StrCat(message, "; ", outcome.message);
      if (first_problem.empty()) {
        first_problem = outcome.reason;
        first_message = outcome.message;
      }
    }
    if (outcome.plan && !outcome.plan->without_reading.empty() && outcome.reason.empty()) {
      auto& [set, message] = conditions["DataMissing"];
      set = true;
      message = absl::StrCat("no current reading for ",
                             absl::StrJoin(outcome.plan->without_reading, ", "),
                             ": no traffic is sent there from other localities");
    }
  }
  JsonValue list = JsonValue::array();
  auto& since = conditions_[policy.uid];
  for (const char* type : kConditionTypes) {
    bool is_true = false;
    std::string reason, message;
    if (std::string(type) == "Ready") {
      is_true = first_problem.empty();
      reason = is_true ? "Reconciled" : first_problem;
      message = is_true ? "every target holds the planned weights" : first_message;
    } else {
      const auto it = conditions.find(type);
      is_true = it != conditions.end();
      reason = is_true ? type : "None";
      message = is_true ? it->second.second : "";
    }
    const std::string status = is_true ? "True" : "False";
    auto& [last, at] = since[type];
    if (last != status) {
      last = status;
      at = now;
    }
    JsonValue condition = {{"type", type},
                           {"status", status},
                           {"reason", reason},
                           {"lastTransitionTime", UtcSeconds(at)},
                           {"observedGeneration", policy.generation}};
    if (!message.empty()) condition["message"] = message;
    list.push_back(std::move(condition));
  }
  const std::string body = JsonValue{{"status",
                                      {{"observedGeneration", policy.generation},
                                       {"targets", std::move(targets)},
                                       {"conditions", std::move(list)}}}}
                               .dump();
  if (options_.dry_run || written_status_[policy.uid] == body) return;
  absl::StatusOr<std::string> written =
      api_.PatchStatus(PolicyPath(policy), kube::kMergePatch, body);
  if (!written.ok()) {
    metrics_.Error("status");
    spdlog::warn(
        absl::StrCat("route: the status of ", policy.Describe(), ": ", written.status().message()));
    return;
  }
  written_status_[policy.uid] = body;
}

void RoutingController::SetFinalizers(const RoutingPolicy& policy,
                                      const std::vector<std::string>& finalizers) {
  const absl::StatusOr<std::string> patched =
      api_.Patch(PolicyPath(policy), kube::kMergePatch,
                 JsonValue{{"metadata", {{"finalizers", finalizers}}}}.dump());
  if (!patched.ok()) {
    metrics_.Error("patch");
    spdlog::warn(absl::StrCat("route: the finalizers of ", policy.Describe(), ": ",
                              patched.status().message()));
  }
}

void RoutingController::Finalize(const RoutingPolicy& policy) {
  if (absl::c_find(policy.finalizers, kRestoreFinalizer) == policy.finalizers.end()) return;
  for (const TargetRef& target : policy.targets) {
    if (target.kind != TargetKind::kDestinationRule) continue;
    const std::string path = RulePath(policy.namespace_name, target.name);
    absl::StatusOr<std::string> body = api_.Get(path);
    if (!body.ok() && absl::IsNotFound(body.status())) continue;  // gone: nothing to put back
    kube::JsonDocument document;
    absl::StatusOr<kube::JsonField> rule =
        body.ok() ? document.Parse(*body, "DestinationRule") : body.status();
    absl::StatusOr<std::string> restore =
        rule.ok() ? RestorePatch(CheckDestinationRule(*rule).original) : rule.status();
    if (rule.ok() && CheckDestinationRule(*rule).original.empty()) continue;  // never written
    absl::StatusOr<std::string> restored =
        restore.ok() ? api_.Patch(path, kube::kMergePatch, *restore) : restore.status();
    if (!restored.ok()) {  // the finalizer stays: tried again at the next pass
      metrics_.Error("patch");
      spdlog::warn(absl::StrCat("route: restoring ", target.Describe(policy.namespace_name),
                                " for the deleted ", policy.Describe(), ": ",
                                restored.status().message()));
      return;
    }
    spdlog::info(absl::StrCat("route: ", target.Describe(policy.namespace_name),
                              ": its localityLbSetting is back as it was before ",
                              policy.Describe()));
  }
  std::vector<std::string> finalizers = policy.finalizers;
  std::erase(finalizers, std::string(kRestoreFinalizer));
  SetFinalizers(policy, finalizers);
}

void RoutingController::ReleaseUntargeted() {
  struct Written {
    std::string namespace_name, name, routed_by, original;
  };
  std::vector<Written> written;
  absl::StatusOr<kube::ListResult> listed = kube::ListAll(
      api_,
      {.path = "/apis/networking.istio.io/v1/destinationrules", .list_kind = "DestinationRuleList"},
      [&](const kube::JsonField& item) {
        const RuleCheck check = CheckDestinationRule(item);
        if (check.routed_by.empty() || check.original.empty()) return absl::OkStatus();
        written.push_back({item["metadata"]["namespace"].OptionalString().value_or(""),
                           item["metadata"]["name"].OptionalString().value_or(""), check.routed_by,
                           check.original});
        return absl::OkStatus();
      },
      [&] { written.clear(); });
  if (!listed.ok()) {
    if (!absl::IsNotFound(listed.status())) {  // 404: Istio's CRD is not installed
      metrics_.Error("list");
      spdlog::warn(absl::StrCat("route: listing DestinationRules: ", listed.status().message()));
    }
    return;
  }
  for (const Written& rule : written) {
    const auto owner = absl::c_find_if(policies_, [&rule](const RoutingPolicy& policy) {
      return absl::StrCat(policy.namespace_name, "/", policy.name) == rule.routed_by;
    });
    if (owner != policies_.end()) {
      if (owner->deleting) continue;  // its finalizer puts the rule back
      const bool targeted =
          owner->namespace_name == rule.namespace_name &&
          absl::c_any_of(owner->targets, [&rule](const TargetRef& target) {
            return target.kind == TargetKind::kDestinationRule && target.name == rule.name;
          });
      if (targeted) continue;
    }
    const std::string what = absl::StrCat("DestinationRule ", rule.namespace_name, "/", rule.name);
    absl::StatusOr<std::string> restore = RestorePatch(rule.original);
    absl::StatusOr<std::string> restored =
        restore.ok()
            ? api_.Patch(RulePath(rule.namespace_name, rule.name), kube::kMergePatch, *restore)
            : restore.status();
    if (!restored.ok()) {
      metrics_.Error("patch");
      spdlog::warn(absl::StrCat("route: restoring ", what, ": ", restored.status().message()));
      continue;
    }
    spdlog::info(absl::StrCat("route: ", what, ": no policy targets it any more (", rule.routed_by,
                              " wrote it): its localityLbSetting is back as it was"));
  }
}

void RoutingController::Reconcile(const kube::ControllerPass& pass) {
  metrics_.SetLeader(pass.leading);
  if (!pass.lease_error.empty()) metrics_.Error("lease");
  if (!pass.leading || !pass.listed) return;
  const absl::Time now = pass.now;
  model_sources::LoadedModel loaded = load_model_(now);
  for (const absl::Status& error : loaded.errors) {
    metrics_.Error("model");
    spdlog::warn(absl::StrCat("route: model source: ", error.message()));
  }
  if (loaded.model == nullptr) {
    loaded.model = std::make_shared<const placement::PlacementModel>(placement::PlacementFacts{});
  }
  std::map<std::string, RoutingPolicy> known;
  for (const RoutingPolicy& policy : policies_) {
    known[policy.uid] = policy;
    metrics_.Touched(policy, now);
    if (!options_.dry_run && policy.deleting) {
      Finalize(policy);
      continue;
    }
    if (!options_.dry_run &&
        absl::c_find(policy.finalizers, kRestoreFinalizer) == policy.finalizers.end()) {
      std::vector<std::string> finalizers = policy.finalizers;
      finalizers.push_back(kRestoreFinalizer);
      SetFinalizers(policy, finalizers);
    }
    std::vector<Outcome> outcomes;
    if (!policy.invalid.empty()) {
      Outcome invalid{.result = "invalid", .reason = "Invalid", .message = policy.invalid};
      if (!policy.targets.empty()) invalid.target = policy.targets.front();
      outcomes.push_back(std::move(invalid));
    } else {
      for (const TargetRef& target : policy.targets) {
        outcomes.push_back(ReconcileTarget(policy, target, *loaded.model, now));
      }
    }
    for (const Outcome& outcome : outcomes) {
      metrics_.Reconciled(policy, outcome.result);
      if (!outcome.reason.empty()) {
        spdlog::warn(absl::StrCat("route: ", policy.Describe(), ": ", outcome.message));
      }
    }
    WriteStatus(policy, outcomes, now);
  }
  if (!options_.dry_run) ReleaseUntargeted();
  for (const auto& [uid, policy] : known_) {  // deleted since the last pass: its gauges go
    if (known.contains(uid)) continue;
    metrics_.Forget(policy);
    written_status_.erase(uid);
    conditions_.erase(uid);
    const std::string prefix = absl::StrCat(uid, "/");
    std::erase_if(row_changed_,
                  [&prefix](const auto& entry) { return entry.first.rfind(prefix, 0) == 0; });
  }
  known_ = std::move(known);
}

}  // namespace carbonroute::routing
