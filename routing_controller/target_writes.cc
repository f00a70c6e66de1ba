#include "routing_controller/target_writes.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace carbonroute::routing {

TargetOutcome TargetWrites::Refuse(TargetOutcome outcome, const std::string& what,
                                   std::string result, std::string reason,
                                   const std::string& message) {
  outcome.result = std::move(result);
  outcome.reason = std::move(reason);
  outcome.message = absl::StrCat(what, ": ", message);
  return outcome;
}

TargetOutcome TargetWrites::RefuseGet(TargetOutcome outcome, const std::string& what,
                                      const absl::Status& status) {
  if (absl::IsNotFound(status)) {
    return Refuse(std::move(outcome), what, "target_not_found", "TargetNotFound", "not found");
  }
  metrics_.common().Error("get");
  return Refuse(std::move(outcome), what, "error", "Error", std::string(status.message()));
}

TargetOutcome TargetWrites::Write(TargetOutcome outcome, const std::string& what,
                                  const RoutingPolicy& policy, const std::string& path,
                                  absl::string_view content_type, std::string body,
                                  const std::string& change, absl::Time now) {
  if (dry_run_) {
    Event(policy, kube::EventType::kNormal, "WouldChangeWeights", change, now);
    outcome.result = "unchanged";
    return outcome;
  }
  absl::StatusOr<std::string> patched = api_.Patch(path, content_type, std::move(body));
  if (!patched.ok()) {
    metrics_.common().Error("patch");
    return Refuse(std::move(outcome), what, "error", "Error",
                  std::string(patched.status().message()));
  }
  spdlog::info(absl::StrCat("route: ", change));
  Event(policy, kube::EventType::kNormal, "WeightsChanged", change, now);
  outcome.result = "written";
  return outcome;
}

void TargetWrites::Event(const RoutingPolicy& policy, kube::EventType type,
                         const std::string& reason, const std::string& message, absl::Time now) {
  events_.Say({kPolicyGroupVersion, kPolicyKind, policy.namespace_name, policy.name, policy.uid},
              policy.Describe(), type, reason, message, now);
}

}  // namespace carbonroute::routing
