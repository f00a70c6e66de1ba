#include "routing_controller/routing_controller.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kube/json_view.h"
#include "kube/list_watch.h"
#include "routing_controller/destination_rule_target.h"
#include "routing_controller/http_route_target.h"
#include "routing_controller/policy_status.h"

namespace carbonroute::routing {
namespace {

constexpr char kNodesPath[] = "/api/v1/nodes";

kube::ControllerLoopOptions LoopOptions(const RoutingControllerOptions& options) {
  kube::ControllerLoopOptions loop{.resync = options.resync,
                                   .watch_timeout = options.watch_timeout};
  if (options.watch) loop.watched.push_back({PoliciesPath(), "CarbonRoutingPolicyList"});
  return loop;
}

}  // namespace

RoutingController::RoutingController(const controller_runtime::Wiring& wiring,
                                     RoutingControllerOptions options,
                                     RoutingModelLoader load_model, RoutingMetrics& metrics,
                                     ledger::Ledger* ledger)
    : LoopController(LoopOptions(options), wiring),
      options_(std::move(options)),
      api_(wiring.api),
      load_model_(std::move(load_model)),
      metrics_(metrics),
      writers_(wiring, metrics_.common(), "route", options_.dry_run),
      writes_(wiring.api, writers_.events, metrics_, options_.dry_run),
      demand_(wiring.api, metrics_, options_),
      booker_(ledger, options_),
      restorer_(wiring.api, metrics_) {}

absl::StatusOr<kube::ListedVersions> RoutingController::List(absl::Time /*now*/) {
  std::vector<RoutingPolicy> policies;
  kube::ListedVersions versions;
  if (absl::Status listed = writers_.ListCollection(
          {.path = PoliciesPath(), .list_kind = "CarbonRoutingPolicyList"}, "CarbonRoutingPolicies",
          [&](const kube::JsonField& item) {
            absl::StatusOr<RoutingPolicy> policy = ReadRoutingPolicy(item);
            if (!policy.ok()) return policy.status();
            policies.push_back(*std::move(policy));
            return absl::OkStatus();
          },
          [&] { policies.clear(); }, versions);
      !listed.ok()) {
    return listed;
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
    metrics_.common().Error("list");
    spdlog::warn(absl::StrCat("route: listing Nodes: ", nodes_listed.status().message()));
    return nodes_listed.status();
  }
  policies_ = std::move(policies);
  nodes_ = std::move(nodes);
  return versions;
}

std::vector<TargetOutcome> RoutingController::ReconcileTargets(
    const RoutingPolicy& policy, const placement::PlacementModel& model, absl::Time now) {
  std::vector<TargetOutcome> outcomes;
  if (!policy.invalid.empty()) {
    TargetOutcome invalid{.result = "invalid", .reason = "Invalid", .message = policy.invalid};
    if (!policy.targets.empty()) invalid.target = policy.targets.front();
    outcomes.push_back(std::move(invalid));
    return outcomes;
  }
  TargetContext context{.api = api_,
                        .options = options_,
                        .metrics = metrics_,
                        .demand = demand_,
                        .writes = writes_,
                        .booker = booker_,
                        .row_changed = row_changed_};
  for (const TargetRef& target : policy.targets) {
    outcomes.push_back(target.kind == TargetKind::kHttpRoute
                           ? ReconcileHttpRoute(context, policy, target, model, now)
                           : ReconcileDestinationRule(context, policy, target, model, now));
  }
  return outcomes;
}

void RoutingController::Reconcile(const kube::ControllerPass& pass) {
  metrics_.common().SetLeader(pass.leading);
  if (!pass.lease_error.empty()) metrics_.common().Error("lease");
  if (!pass.leading || !pass.listed) return;
  const absl::Time now = pass.now;
  demand_.NewPass(nodes_);
  model_sources::LoadedModel loaded = load_model_(now);
  for (const absl::Status& error : loaded.errors) {
    metrics_.common().Error("model");
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
      restorer_.Finalize(policy);
      continue;
    }
    if (!options_.dry_run) restorer_.AddFinalizer(policy);
    const std::vector<TargetOutcome> outcomes = ReconcileTargets(policy, *loaded.model, now);
    for (const TargetOutcome& outcome : outcomes) {
      metrics_.Reconciled(policy, outcome.result);
      if (!outcome.reason.empty()) {
        spdlog::warn(absl::StrCat("route: ", policy.Describe(), ": ", outcome.message));
      }
    }
    writers_.status.Write(
        policy.uid, PolicyPath(policy), policy.Describe(),
        PolicyStatusBody(policy, outcomes, [&](const std::string& type, const std::string& status) {
          return writers_.status.TransitionTime(policy.uid, type, status, now);
        }));
  }
  if (!options_.dry_run) restorer_.ReleaseUntargeted(policies_);
  for (const auto& [uid, policy] : known_) {  // deleted since the last pass: its gauges go
    if (known.contains(uid)) continue;
    metrics_.Forget(policy);
    writers_.status.Forget(uid);
    const std::string prefix = absl::StrCat(uid, "/");
    std::erase_if(row_changed_,
                  [&prefix](const auto& entry) { return entry.first.rfind(prefix, 0) == 0; });
    booker_.Forget(prefix);
  }
  known_ = std::move(known);
}

}  // namespace carbonroute::routing
