// File: routing_controller/routing_controller.h
//
// `scheduler-lite route --controller`: keeps every CarbonRoutingPolicy's
// DestinationRules weighted toward the cleanest grids within its latency
// limit (docs/routing.md). A kube::Reconciler on the controller loop
// (kube/controller_loop.h: the Lease, lists every `resync` and on a watched
// change, the health answers).
//
// One pass, while leading, after a list of the policies
// (routing/routing_policy.h; none while the CRD is not installed) and of the
// Nodes (kube/kube_node.h):
//   1. one model from the sources `serve` reads (the loader's);
//   2. per policy, per DestinationRule target: GET the rule (404:
//      TargetNotFound); refuse it when it sets failover or lacks
//      outlierDetection (routing/destination_rule_patch.h); count its
//      Service's ready endpoints per locality (routing/service_endpoints.h);
//      plan (routing/route_plan.h); with no reading for any destination keep
//      the rule as it is (DataMissing); else merge-patch its
//      localityLbSetting only when the rows differ from what it holds, with
//      an Event on the policy naming the old and new rows (`dry_run`: the
//      Event alone, WouldChangeWeights);
//   3. a policy without the finalizer kRestoreFinalizer gets it; one being
//      deleted has each rule or route it wrote put back as it was before its
//      first write (kept in an annotation on the object), then loses the
//      finalizer; a rule or route its writer (carbonroute.io/routed-by) no
//      longer targets, or whose writer is gone, is put back the same way (a
//      list of every DestinationRule and HTTPRoute per pass);
//   4. the policy's status (observedGeneration, per target the rows with
//      each destination's intensity, RTT and reason, the conditions Ready,
//      DataMissing, TargetNotFound, FailoverConfigured,
//      OutlierDetectionMissing) through the status subresource, only when it
//      differs from what this replica wrote last (`dry_run`: never).
// The parts, each in a file of its own: a DestinationRule target
// (destination_rule_target.h) and an HTTPRoute target (http_route_target.h),
// given the Service's endpoints and measured demand (service_demand.h), the
// writes and refusals (target_writes.h) and the savings ledger's booking
// (target_booker.h, route_ledger.h); the finalizer and the release of what no
// policy targets (target_restorer.h); the status (policy_status.h) through
// controller_runtime's StatusWriter; the metrics (routing_metrics.h).
//
// Ownership: borrows every argument. Thread safety: RunOnce/Run on one
// thread; healthy() and turning() from any. Logs through spdlog's default
// logger.
#ifndef CARBONROUTE_ROUTING_CONTROLLER_ROUTING_CONTROLLER_H_
#define CARBONROUTE_ROUTING_CONTROLLER_ROUTING_CONTROLLER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "controller_runtime/loop_controller.h"
#include "controller_runtime/policy_writers.h"
#include "kube/controller_loop.h"
#include "kube/event_recorder.h"
#include "kube/kube_client.h"
#include "kube/kube_node.h"
#include "kube/lease_election.h"
#include "ledger/ledger.h"
#include "model_sources/model_loader.h"
#include "routing/routing_policy.h"
#include "routing_controller/routing_metrics.h"
#include "routing_controller/service_demand.h"
#include "routing_controller/target_booker.h"
#include "routing_controller/target_context.h"
#include "routing_controller/target_restorer.h"
#include "routing_controller/target_writes.h"

namespace carbonroute::routing {

using RoutingModelLoader = model_sources::ModelLoader;

class RoutingController final : public controller_runtime::LoopController {
 public:
  // What is booked in `ledger` (none when null): routing_controller/route_ledger.h.
  RoutingController(const controller_runtime::Wiring& wiring, RoutingControllerOptions options,
                    RoutingModelLoader load_model, RoutingMetrics& metrics,
                    ledger::Ledger* ledger = nullptr);

 private:
  absl::StatusOr<kube::ListedVersions> List(absl::Time now) override;
  void Reconcile(const kube::ControllerPass& pass) override;
  // Every target of `policy`, each with its outcome.
  std::vector<TargetOutcome> ReconcileTargets(const RoutingPolicy& policy,
                                              const placement::PlacementModel& model,
                                              absl::Time now);

  const RoutingControllerOptions options_;
  const kube::KubeClient& api_;
  const RoutingModelLoader load_model_;
  RoutingMetrics& metrics_;
  controller_runtime::PolicyWriters writers_;  // Events, statuses, absent CRDs
  TargetWrites writes_;
  ServiceDemand demand_;
  TargetBooker booker_;
  TargetRestorer restorer_;

  std::vector<RoutingPolicy> policies_;
  std::map<std::string, kube::KubeNode> nodes_;
  std::map<std::string, RoutingPolicy> known_;  // uid → the policy, to forget its gauges
  // "policy uid/target" → origin → when its written row last changed (row_stability.h).
  std::map<std::string, std::map<std::string, absl::Time>> row_changed_;
};

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_CONTROLLER_ROUTING_CONTROLLER_H_
