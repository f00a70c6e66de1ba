#include "routing_controller/destination_rule_target.h"

#include <spdlog/spdlog.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kube/json_view.h"
#include "routing/destination_rule_patch.h"
#include "routing/route_plan.h"
#include "routing/row_stability.h"
#include "routing_controller/routing_metrics.h"
#include "routing_controller/service_demand.h"
#include "routing_controller/target_booker.h"
#include "routing_controller/target_writes.h"

namespace carbonroute::routing {
namespace {

// Books the rule's interval: `held` ran in it, the plan's rows are what this pass decided.
void BookRule(TargetBooker& booker, const RoutingPolicy& policy, const TargetRef& target,
              const RoutePlan& plan, const TargetDemand& demand,
              const std::vector<DistributeRow>& held, bool moved, absl::Time now) {
  if (!booker.enabled()) return;
  std::vector<std::string> origins;
  for (const RouteRow& row : plan.rows) origins.push_back(row.origin);
  booker.Book(policy, absl::StrCat(policy.uid, "/", target.name), plan, demand, moved,
              WithMeshDefault(SharesOfRows(held), origins, plan.endpoints),
              WithMeshDefault({}, origins, plan.endpoints),
              WithMeshDefault(SharesOfRows(plan.setting.distribute), origins, plan.endpoints), now);
}

}  // namespace

TargetOutcome ReconcileDestinationRule(TargetContext& context, const RoutingPolicy& policy,
                                       const TargetRef& target,
                                       const placement::PlacementModel& model, absl::Time now) {
  TargetOutcome outcome{.target = target};
  const std::string what = target.Describe(policy.namespace_name);
  auto refuse = [&](std::string result, std::string reason, const std::string& message) {
    return TargetWrites::Refuse(outcome, what, std::move(result), std::move(reason), message);
  };
  const std::string path =
      TargetPath(TargetKind::kDestinationRule, policy.namespace_name, target.name);
  absl::StatusOr<std::string> body = context.api.Get(path);
  if (!body.ok()) return context.writes.RefuseGet(outcome, what, body.status());
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
  absl::StatusOr<EndpointCount> counted = context.demand.Endpoints(*service);
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
  const TargetDemand demand{.requests_per_second = context.demand.Measured(*service),
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
                 context.row_changed[absl::StrCat(policy.uid, "/", target.name)]);
  context.metrics.SetWeights(policy, absl::StrCat("DestinationRule/", target.name), plan_made);
  const std::vector<DistributeRow>& planned = plan_made.setting.distribute;
  BookRule(context.booker, policy, target, plan_made, demand, check.held,
           !SameRows(check.held, planned), now);
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
  return context.writes.Write(std::move(outcome), what, policy, path, kube::kMergePatch,
                              std::move(patch), change, now);
}

}  // namespace carbonroute::routing
