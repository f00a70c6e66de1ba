// File: rebalance/rebalance_controller.h
//
// `scheduler-lite rebalance --controller`: re-places running Pods of the
// workloads each CarbonRebalancePolicy selects when another Node they fit,
// within their latency limits, has been cleaner by more than the policy's
// tolerance for longer than its minStay and the move pays (docs/rebalance.md).
// A kube::Reconciler on the controller loop (kube/controller_loop.h: the
// Lease, lists every `resync` and on a watched change of the policies, the
// health answers).
//
// One pass, while leading, after lists of the policies (none while the CRD is
// not installed), the Nodes, the Pods and the Deployments, StatefulSets and
// ReplicaSets:
//   1. one model from the sources `serve` reads;
//   2. moves in flight: the first Pod its owner created after the eviction
//      (a uid the owner did not have then), once bound, is the replacement:
//      its stay starts in the ledger (move_ledger.h) and an Event
//      CarbonRebalanceReplaced names where it went; a move whose replacement
//      is not bound within `in_flight_timeout` is let go (a warning);
//   3. every stay is booked up to now;
//   4. per valid policy, per Pod of a selected workload in its namespace
//      (bound, running, not being deleted; never a Pod without a controller,
//      a DaemonSet's, a mirror Pod, nor one with an emptyDir volume unless
//      allowLocalStorage): the cleanest other Node it fits within its limits
//      (move_plan.h); when it beats the Pod's by more than the tolerance, the
//      gap between the two grid locations is timed (cleanerSince); once that
//      gap and the Pod's own time on its Node both exceed minStay, the move
//      is priced (placement/move_payback.h) and, when it pays, made unless
//      its workload's Pod template names a scheduler whose profile does not
//      call carbonroute's extender (`extender_profiles`: an Event
//      CarbonRebalanceNotPlacedByCarbonroute, once per workload);
//   5. moves, the best (saving − cost) first: at most one per workload in
//      flight, at most maxMovesPerPeriod per period; each an eviction
//      (kube/pod_eviction.h) with an Event on the workload:
//      CarbonRebalanceEvicted, or CarbonRebalanceBlockedByPDB (a
//      PodDisruptionBudget's 429: no other Pod of that workload is tried in
//      the pass; tried again at the next; API Priority and Fairness' 429 ends
//      the pass's evictions), or in a dry
//      run CarbonRebalanceWouldEvict (no eviction; the ledger books the stay
//      it would have had, mode "shadow");
//   6. the policy's status (policy_status.h), only when it changed (a dry
//      run writes none) and its metrics (rebalance_metrics.h).
// Writes: evictions, Events, the policy's status and the Lease; never a
// delete, nor a patch of a workload.
//
// Ownership: borrows every argument. Thread safety: RunOnce/Run on one
// thread; healthy() and turning() from any. Logs through spdlog.
#ifndef CARBONROUTE_REBALANCE_REBALANCE_CONTROLLER_H_
#define CARBONROUTE_REBALANCE_REBALANCE_CONTROLLER_H_

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "controller_runtime/loop_controller.h"
#include "controller_runtime/policy_writers.h"
#include "kube/controller_loop.h"
#include "ledger/ledger.h"
#include "ledger/power_model.h"
#include "model_sources/model_loader.h"
#include "rebalance/cluster_objects.h"
#include "rebalance/move_ledger.h"
#include "rebalance/move_plan.h"
#include "rebalance/policy_status.h"
#include "rebalance/rebalance_metrics.h"
#include "rebalance/rebalance_policy.h"

namespace carbonroute::rebalance {

// The shipped kube-scheduler profile that calls the extender (deploy/kubernetes/scheduler.yaml).
inline constexpr char kShippedProfile[] = "carbonroute";

struct RebalanceControllerOptions {
  absl::Duration resync = absl::Seconds(30);
  bool dry_run = false;
  bool watch = false;  // watch the policies between lists (Run only)
  absl::Duration watch_timeout = kube::kDefaultWatchTimeout;
  // The schedulerNames whose profiles call carbonroute's extender.
  std::set<std::string> extender_profiles = {kShippedProfile};
  ledger::PowerModel power_model;
  absl::Duration in_flight_timeout = absl::Minutes(10);
};

class RebalanceController final : public controller_runtime::LoopController {
 public:
  RebalanceController(const controller_runtime::Wiring& wiring, RebalanceControllerOptions options,
                      model_sources::ModelLoader load_model, RebalanceMetrics& metrics,
                      ledger::Ledger* ledger = nullptr);

 private:
  struct InFlight {
    std::string policy_uid, policy_name, namespace_name;
    std::string pod_uid, pod_name, from_node, from_location, to_location;
    std::set<std::string> owner_pods;  // the owner's Pod uids when it was evicted
    Workload owner;
    double watts = 0, restart_joules = 0;
    bool declared = false;
    absl::Time evicted_at;
  };
  // A Pod whose move was weighed this pass.
  struct Weighed {
    const RebalancePod* pod = nullptr;
    const Workload* owner = nullptr;
    PodPlan plan;
    placement::MovePrice price;
    double watts = 0, restart_joules = 0;
    CandidateStatus status;
  };

  absl::StatusOr<kube::ListedVersions> List(absl::Time now) override;
  void Reconcile(const kube::ControllerPass& pass) override;

  // Steps 2 and 4–6 of a pass (see above).
  void LinkReplacements(const placement::PlacementModel& model, absl::Time now);
  PolicyReport ReconcilePolicy(const RebalancePolicy& policy,
                               const placement::PlacementModel& model, absl::Time now);
  std::vector<Weighed> Weigh(const RebalancePolicy& policy, const placement::PlacementModel& model,
                             absl::Time now, PolicyReport& report);
  void Move(const RebalancePolicy& policy, Weighed& weighed, const placement::PlacementModel& model,
            absl::Time now);
  void Say(const Workload& owner, kube::EventType type, const std::string& reason,
           const std::string& message, absl::Time now);

  const RebalanceControllerOptions options_;
  const kube::KubeClient& api_;
  const model_sources::ModelLoader load_model_;
  RebalanceMetrics& metrics_;
  controller_runtime::PolicyWriters writers_;
  MoveLedger ledger_;

  // What the last list read.
  std::vector<RebalancePolicy> policies_;
  std::vector<RebalancePod> pods_;
  std::map<std::string, Workload> workloads_;  // by uid
  NodeSet nodes_;

  std::map<std::string, absl::Time> cleaner_since_;       // "policy uid/from>to" → since
  std::map<std::string, std::deque<absl::Time>> recent_;  // policy uid → its evictions' times
  std::map<std::string, InFlight> in_flight_;             // owner uid → its move
  std::map<std::string, PolicyReport> totals_;            // policy uid → moves, last move
  std::set<std::string> announced_;                       // "reason/uid": Events said once
  std::set<std::string> refused_this_pass_;  // owners a disruption budget refused this pass
  bool throttled_this_pass_ = false;  // the API server answered API Priority and Fairness' 429
  std::map<std::string, RebalancePolicy> known_;  // uid → policy, to forget its gauges
};

}  // namespace carbonroute::rebalance

#endif  // CARBONROUTE_REBALANCE_REBALANCE_CONTROLLER_H_
