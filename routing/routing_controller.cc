#include "routing/routing_controller.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
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

std::string RoutingController::RoutePath(const std::string& ns, const std::string& name) {
  return absl::StrCat("/apis/gateway.networking.k8s.io/v1/namespaces/", net::UrlEncode(ns),
                      "/httproutes/", net::UrlEncode(name));
}

RoutingController::RoutingController(RoutingControllerOptions options, const kube::KubeClient& api,
                                     RoutingModelLoader load_model, Clock& clock,
                                     RoutingMetrics& metrics, kube::LeaseElection* lease,
                                     const kube::EventRecorder* events, ledger::Ledger* ledger)
    : options_(std::move(options)),
      api_(api),
      load_model_(std::move(load_model)),
      metrics_(metrics),
      events_(events),
      loop_(
          [this] {
            kube::ControllerLoopOptions loop{.resync = options_.resync,
                                             .watch_timeout = options_.watch_timeout};
            if (options_.watch) loop.watched.push_back({kPoliciesPath, "CarbonRoutingPolicyList"});
            return loop;
          }(),
          api, clock, *this, lease) {
  if (ledger != nullptr) {
    // Longer than three resyncs, the controller cannot vouch for what ran.
    route_ledger_ = std::make_unique<RouteLedger>(
        *ledger, options_.dry_run ? ledger::LedgerMode::kShadow : ledger::LedgerMode::kEnforced,
        3 * options_.resync);
    if (options_.pods_meter) route_ledger_->SetMeter(options_.pods_meter);
  }
}

RoutingController::~RoutingController() = default;

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

std::optional<std::map<std::string, double>> RoutingController::MeasuredDemand(
    const ServiceRef& service) {
  if (!options_.request_rates) return std::nullopt;
  absl::StatusOr<ClientRates> rates = options_.request_rates(service);
  if (!rates.ok()) {
    metrics_.Error("requests");
    spdlog::warn(absl::StrCat("route: the requests to ", service.namespace_name, "/", service.name,
                              " (istio_requests_total): ", rates.status().message(),
                              ": demand from the endpoints"));
    return std::nullopt;
  }
  for (const ClientRate& client : rates->clients) {
    const std::string key = absl::StrCat(client.namespace_name, "/", client.pod);
    if (pod_nodes_.contains(key)) continue;
    std::string& node = pod_nodes_[key];  // "" for a Pod gone or unreadable
    absl::StatusOr<std::string> body =
        api_.Get(absl::StrCat("/api/v1/namespaces/", net::UrlEncode(client.namespace_name),
                              "/pods/", net::UrlEncode(client.pod)));
    if (!body.ok()) {
      if (!absl::IsNotFound(body.status())) metrics_.Error("get");
      continue;
    }
    kube::JsonDocument document;
    absl::StatusOr<kube::JsonField> pod = document.Parse(*body, "Pod");
    if (pod.ok()) node = (*pod)["spec"]["nodeName"].OptionalString().value_or("");
  }
  LocalityDemand demand = DemandByLocality(*rates, pod_nodes_, nodes_, options_.level);
  if (demand.unlocated > 0) {
    spdlog::warn(absl::StrCat("route: ", demand.unlocated, " requests/s to ",
                              service.namespace_name, "/", service.name,
                              " come from Pods without a known Node or region: left out"));
  }
  return std::move(demand.per_second);
}

void RoutingController::BookTarget(const RoutingPolicy& policy, const std::string& key,
                                   const RoutePlan& plan, const TargetDemand& demand, bool moved,
                                   OriginShares ran, OriginShares alternative, OriginShares decided,
                                   absl::Time now) {
  RouteBooking booking{.key = key,
                       .namespace_name = policy.namespace_name,
                       .joules_per_request = policy.joules_per_request,
                       .requests_per_second = demand.requests_per_second,
                       .pods = demand.pods,
                       .plan = &plan,
                       .moved = moved};
  if (options_.dry_run) {  // what it would have written at the previous pass, against what ran
    const auto previous = would_book_.find(key);
    booking.chosen = previous == would_book_.end() ? ran : previous->second;
    booking.counterfactual = std::move(ran);
    would_book_[key] = std::move(decided);
  } else {
    booking.chosen = std::move(ran);
    booking.counterfactual = std::move(alternative);
  }
  route_ledger_->Book(booking, now);
}

void RoutingController::BookRule(const RoutingPolicy& policy, const TargetRef& target,
                                 const RoutePlan& plan, const TargetDemand& demand,
                                 const std::vector<DistributeRow>& held, bool moved,
                                 absl::Time now) {
  if (route_ledger_ == nullptr) return;
  std::vector<std::string> origins;
  for (const RouteRow& row : plan.rows) origins.push_back(row.origin);
  BookTarget(policy, absl::StrCat(policy.uid, "/", target.name), plan, demand, moved,
             WithMeshDefault(SharesOfRows(held), origins, plan.endpoints),
             WithMeshDefault({}, origins, plan.endpoints),
             WithMeshDefault(SharesOfRows(plan.setting.distribute), origins, plan.endpoints), now);
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
  const TargetDemand demand{.requests_per_second = MeasuredDemand(*service),
                            .pods = {{service->namespace_name, count.pods}}};
  const std::optional<std::map<std::string, double>>& measured = demand.requests_per_second;
  absl::StatusOr<RoutePlan> plan =
      PlanRoutes(policy, count.by_locality, model, now, /*endpoints_are_origins=*/true,
                 measured ? &*measured : nullptr);
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
  BookRule(policy, target, plan_made, demand, check.held, !SameRows(check.held, planned), now);
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

namespace {

// A target kind's path, and the patch that puts back what carbonroute kept of it.
std::string TargetPath(TargetKind kind, const std::string& ns, const std::string& name) {
  return kind == TargetKind::kDestinationRule ? RulePath(ns, name)
                                              : RoutingController::RoutePath(ns, name);
}

struct RestoreWrite {
  absl::string_view content_type;
  std::string body;
};

absl::StatusOr<RestoreWrite> RestoreOf(TargetKind kind, const std::string& original) {
  if (kind == TargetKind::kDestinationRule) {
    CARBONROUTE_ASSIGN_OR_RETURN(std::string body, RestorePatch(original));
    return RestoreWrite{kube::kMergePatch, std::move(body)};
  }
  CARBONROUTE_ASSIGN_OR_RETURN(std::string body, RestoreWeightsPatch(original));
  return RestoreWrite{kube::kJsonPatch, std::move(body)};
}

// What carbonroute kept of a target's own setting ("" when it never wrote it), and who wrote.
std::pair<std::string, std::string> KeptOf(TargetKind kind, const kube::JsonField& object) {
  if (kind == TargetKind::kDestinationRule) {
    const RuleCheck check = CheckDestinationRule(object);
    return {check.original, check.routed_by};
  }
  const RouteKept kept = ReadRouteKept(object);
  return {kept.original, kept.routed_by};
}

}  // namespace

absl::Status RoutingController::Restore(TargetKind kind, const std::string& ns,
                                        const std::string& name, const std::string& original) {
  CARBONROUTE_ASSIGN_OR_RETURN(const RestoreWrite write, RestoreOf(kind, original));
  return api_.Patch(TargetPath(kind, ns, name), write.content_type, write.body).status();
}

void RoutingController::Finalize(const RoutingPolicy& policy) {
  if (absl::c_find(policy.finalizers, kRestoreFinalizer) == policy.finalizers.end()) return;
  for (const TargetRef& target : policy.targets) {
    absl::StatusOr<std::string> body =
        api_.Get(TargetPath(target.kind, policy.namespace_name, target.name));
    if (!body.ok() && absl::IsNotFound(body.status())) continue;  // gone: nothing to put back
    kube::JsonDocument document;
    absl::StatusOr<kube::JsonField> object =
        body.ok() ? document.Parse(*body, "target") : body.status();
    const std::string original = object.ok() ? KeptOf(target.kind, *object).first : "";
    if (object.ok() && original.empty()) continue;  // never written
    const absl::Status restored =
        object.ok() ? Restore(target.kind, policy.namespace_name, target.name, original)
                    : object.status();
    if (!restored.ok()) {  // the finalizer stays: tried again at the next pass
      metrics_.Error("patch");
      spdlog::warn(absl::StrCat("route: restoring ", target.Describe(policy.namespace_name),
                                " for the deleted ", policy.Describe(), ": ", restored.message()));
      return;
    }
    spdlog::info(absl::StrCat("route: ", target.Describe(policy.namespace_name),
                              ": what it held is back as it was before ", policy.Describe()));
  }
  std::vector<std::string> finalizers = policy.finalizers;
  std::erase(finalizers, std::string(kRestoreFinalizer));
  SetFinalizers(policy, finalizers);
}

void RoutingController::ReleaseUntargeted() {
  struct Written {
    TargetKind kind;
    std::string namespace_name, name, routed_by, original;
  };
  std::vector<Written> written;
  for (const TargetKind kind : {TargetKind::kDestinationRule, TargetKind::kHttpRoute}) {
    const bool rule = kind == TargetKind::kDestinationRule;
    absl::StatusOr<kube::ListResult> listed = kube::ListAll(
        api_,
        {.path = rule ? "/apis/networking.istio.io/v1/destinationrules"
                      : "/apis/gateway.networking.k8s.io/v1/httproutes",
         .list_kind = rule ? "DestinationRuleList" : "HTTPRouteList"},
        [&](const kube::JsonField& item) {
          auto [original, routed_by] = KeptOf(kind, item);
          if (routed_by.empty() || original.empty()) return absl::OkStatus();
          written.push_back({kind, item["metadata"]["namespace"].OptionalString().value_or(""),
                             item["metadata"]["name"].OptionalString().value_or(""),
                             std::move(routed_by), std::move(original)});
          return absl::OkStatus();
        },
        [&] { std::erase_if(written, [kind](const Written& w) { return w.kind == kind; }); });
    if (!listed.ok() && !absl::IsNotFound(listed.status())) {  // 404: the CRD is not installed
      metrics_.Error("list");
      spdlog::warn(absl::StrCat("route: listing ", rule ? "DestinationRules" : "HTTPRoutes", ": ",
                                listed.status().message()));
      return;
    }
  }
  for (const Written& object : written) {
    const auto owner = absl::c_find_if(policies_, [&object](const RoutingPolicy& policy) {
      return absl::StrCat(policy.namespace_name, "/", policy.name) == object.routed_by;
    });
    if (owner != policies_.end()) {
      if (owner->deleting) continue;  // its finalizer puts the object back
      const bool targeted = owner->namespace_name == object.namespace_name &&
                            absl::c_any_of(owner->targets, [&object](const TargetRef& target) {
                              return target.kind == object.kind && target.name == object.name;
                            });
      if (targeted) continue;
    }
    const std::string what =
        TargetRef{.kind = object.kind, .name = object.name}.Describe(object.namespace_name);
    const absl::Status restored =
        Restore(object.kind, object.namespace_name, object.name, object.original);
    if (!restored.ok()) {
      metrics_.Error("patch");
      spdlog::warn(absl::StrCat("route: restoring ", what, ": ", restored.message()));
      continue;
    }
    spdlog::info(absl::StrCat("route: ", what, ": no policy targets it any more (",
                              object.routed_by, " wrote it): it is back as it was"));
  }
}

void RoutingController::Reconcile(const kube::ControllerPass& pass) {
  metrics_.SetLeader(pass.leading);
  if (!pass.lease_error.empty()) metrics_.Error("lease");
  if (!pass.leading || !pass.listed) return;
  const absl::Time now = pass.now;
  pod_nodes_.clear();
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
    std::erase_if(would_book_,
                  [&prefix](const auto& entry) { return entry.first.rfind(prefix, 0) == 0; });
    if (route_ledger_ != nullptr) route_ledger_->Forget(prefix);
  }
  known_ = std::move(known);
}

}  // namespace carbonroute::routing
