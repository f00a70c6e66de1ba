// File: routing_controller/target_restorer.h
//
// Every rule and route carbonroute wrote gets back what it held before its
// first write (kept in an annotation on the object: routing/destination_rule_patch.h
// RestorePatch, routing/http_route_patch.h RestoreWeightsPatch):
//   - a policy without the finalizer kRestoreFinalizer gets it (AddFinalizer);
//   - a policy being deleted has each target it wrote put back, then loses
//     the finalizer (Finalize; a failed restore keeps the finalizer, to be
//     tried again at the next pass);
//   - a rule or route whose writer (carbonroute.io/routed-by) no longer
//     targets it, or is gone, is put back the same way (ReleaseUntargeted: a
//     list of every DestinationRule and HTTPRoute; 404, a CRD not installed,
//     lists none).
//
// Errors: failed writes and lists are logged and counted (operations
// "patch", "list"); nothing is returned.
// Ownership: borrows the client and the metrics.
// Thread safety: one thread (the controller's pass).
#ifndef CARBONROUTE_ROUTING_CONTROLLER_TARGET_RESTORER_H_
#define CARBONROUTE_ROUTING_CONTROLLER_TARGET_RESTORER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "kube/kube_client.h"
#include "routing/routing_policy.h"
#include "routing_controller/routing_metrics.h"

namespace carbonroute::routing {

class TargetRestorer {
 public:
  TargetRestorer(const kube::KubeClient& api, RoutingMetrics& metrics)
      : api_(api), metrics_(metrics) {}

  void AddFinalizer(const RoutingPolicy& policy);
  void Finalize(const RoutingPolicy& policy);
  // `policies`: every policy listed this pass.
  void ReleaseUntargeted(const std::vector<RoutingPolicy>& policies);

 private:
  // Puts back `original` (what carbonroute kept at its first write) into the target.
  absl::Status Restore(TargetKind kind, const std::string& ns, const std::string& name,
                       const std::string& original) const;
  void SetFinalizers(const RoutingPolicy& policy, const std::vector<std::string>& finalizers);

  const kube::KubeClient& api_;
  RoutingMetrics& metrics_;
};

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_CONTROLLER_TARGET_RESTORER_H_
