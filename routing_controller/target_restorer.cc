#include "routing_controller/target_restorer.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kube/json_view.h"
#include "kube/list_watch.h"
#include "routing/destination_rule_patch.h"
#include "routing/http_route_patch.h"
#include "routing_controller/target_context.h"

namespace carbonroute::routing {

void TargetRestorer::AddFinalizer(const RoutingPolicy& policy) {
  if (absl::c_find(policy.finalizers, kRestoreFinalizer) != policy.finalizers.end()) return;
  std::vector<std::string> finalizers = policy.finalizers;
  finalizers.push_back(kRestoreFinalizer);
  SetFinalizers(policy, finalizers);
}

void TargetRestorer::SetFinalizers(const RoutingPolicy& policy,
                                   const std::vector<std::string>& finalizers) {
  const absl::StatusOr<std::string> patched =
      api_.Patch(PolicyPath(policy), kube::kMergePatch,
                 nlohmann::json{{"metadata", {{"finalizers", finalizers}}}}.dump());
  if (!patched.ok()) {
    metrics_.common().Error("patch");
    spdlog::warn(absl::StrCat("route: the finalizers of ", policy.Describe(), ": ",
                              patched.status().message()));
  }
}

namespace {

// The patch that puts back what carbonroute kept of a target.
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

absl::Status TargetRestorer::Restore(TargetKind kind, const std::string& ns,
                                     const std::string& name, const std::string& original) const {
  CARBONROUTE_ASSIGN_OR_RETURN(const RestoreWrite write, RestoreOf(kind, original));
  return api_.Patch(TargetPath(kind, ns, name), write.content_type, write.body).status();
}

void TargetRestorer::Finalize(const RoutingPolicy& policy) {
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
      metrics_.common().Error("patch");
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

void TargetRestorer::ReleaseUntargeted(const std::vector<RoutingPolicy>& policies) {
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
      metrics_.common().Error("list");
      spdlog::warn(absl::StrCat("route: listing ", rule ? "DestinationRules" : "HTTPRoutes", ": ",
                                listed.status().message()));
      return;
    }
  }
  for (const Written& object : written) {
    const auto owner = absl::c_find_if(policies, [&object](const RoutingPolicy& policy) {
      return absl::StrCat(policy.namespace_name, "/", policy.name) == object.routed_by;
    });
    if (owner != policies.end()) {
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
      metrics_.common().Error("patch");
      spdlog::warn(absl::StrCat("route: restoring ", what, ": ", restored.message()));
      continue;
    }
    spdlog::info(absl::StrCat("route: ", what, ": no policy targets it any more (",
                              object.routed_by, " wrote it): it is back as it was"));
  }
}

}  // namespace carbonroute::routing
