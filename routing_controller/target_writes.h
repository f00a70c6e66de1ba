// File: routing_controller/target_writes.h
//
// How a target's reconcile ends (target_context.h TargetOutcome): refused
// with a result and a condition's reason, or its new weights written with an
// Event on the policy naming the change (`dry_run`: the Event alone,
// WouldChangeWeights, and nothing written).
//
// Errors: a failed GET is TargetNotFound on 404, else Error (counted,
// operation "get"); a failed write is Error (counted, operation "patch").
// Ownership: borrows the client, the Events and the metrics.
// Thread safety: one thread (the controller's pass).
#ifndef CARBONROUTE_ROUTING_CONTROLLER_TARGET_WRITES_H_
#define CARBONROUTE_ROUTING_CONTROLLER_TARGET_WRITES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "controller_runtime/object_events.h"
#include "kube/kube_client.h"
#include "routing/routing_policy.h"
#include "routing_controller/routing_metrics.h"
#include "routing_controller/target_context.h"

namespace carbonroute::routing {

class TargetWrites {
 public:
  TargetWrites(const kube::KubeClient& api, controller_runtime::ObjectEvents& events,
               RoutingMetrics& metrics, bool dry_run)
      : api_(api), events_(events), metrics_(metrics), dry_run_(dry_run) {}

  // `outcome` as a refusal of its target (`what`: "DestinationRule shop/web").
  static TargetOutcome Refuse(TargetOutcome outcome, const std::string& what, std::string result,
                              std::string reason, const std::string& message);
  // The refusal of a target whose GET failed: 404 TargetNotFound, else Error.
  TargetOutcome RefuseGet(TargetOutcome outcome, const std::string& what,
                          const absl::Status& status);
  // Writes `body` to the target at `path` with an Event naming `change`
  // ("written"); a dry run says it in an Event only ("unchanged").
  TargetOutcome Write(TargetOutcome outcome, const std::string& what, const RoutingPolicy& policy,
                      const std::string& path, absl::string_view content_type, std::string body,
                      const std::string& change, absl::Time now);
  // An Event on the policy.
  void Event(const RoutingPolicy& policy, kube::EventType type, const std::string& reason,
             const std::string& message, absl::Time now);

 private:
  const kube::KubeClient& api_;
  controller_runtime::ObjectEvents& events_;
  RoutingMetrics& metrics_;
  const bool dry_run_;
};

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_CONTROLLER_TARGET_WRITES_H_
