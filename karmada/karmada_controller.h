// File: karmada/karmada_controller.h
//
// `scheduler-lite karmada --controller`: keeps placing the PropagationPolicies
// and ClusterPropagationPolicies that CarbonAwareKarmadaPolicy and
// CarbonPlacementPolicy objects name on the cleanest member clusters
// (README "Karmada"; the decision in placement_choice.h, the objects in
// carbon_policy.h and target_policy.h, the status in policy_status.h).
//
// One pass (RunOnce), at the clock's now:
//   1. with a Lease (kube/lease_election.h), acts only while leading;
//   2. every `resync`, and within kube::kWatchLatency of a watched change (a policy
//      of either kind, a PropagationPolicy or ClusterPropagationPolicy:
//      kube/change_watch.h from the lists' versions), lists both policy kinds
//      and both target kinds (a kind whose CRD is not installed, 404, lists
//      as empty and is said once), and the Karmada Cluster objects when a
//      policy takes its clusters from them; a failed list changes nothing
//      and is tried again within 5 s;
//   3. reads the model once (the sources `serve` takes) and, for each policy,
//      scores its clusters (placement/scoring.h), decides
//      (placement_choice.h), merge-patches the target only when the chosen
//      set (or the weights) changed, records an Event on the policy for a
//      move and for a new problem (missing data, missing target, invalid spec,
//      clusterAffinities), and writes the status when it differs from what
//      this process wrote last.
// The passes run on kube/controller_loop.h (the Lease, the lists and watches,
// the wake-up, the health answer); this class is the loop's Reconciler.
// Run() repeats passes until stopped. With a ledger, each pass books the
// interval since the policy's previous pass (karmada/placement_ledger.h);
// with `dry_run`, it writes nothing but Events and the Lease.
//
// Cluster objects (cluster.karmada.io/v1alpha1): a cluster's grid location is
// its carbonroute.io/location label, else its spec.region through the
// region map of the model (--region-zones); a cluster with neither is named
// in the DataMissing condition.
//
// Ownership: borrows every argument. Thread safety: RunOnce/Run on one
// thread; healthy() from any. Logs through spdlog's default logger (cli/logging.h).
#ifndef CARBONROUTE_KARMADA_KARMADA_CONTROLLER_H_
#define CARBONROUTE_KARMADA_KARMADA_CONTROLLER_H_

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "controller_runtime/loop_controller.h"
#include "controller_runtime/policy_writers.h"
#include "karmada/carbon_policy.h"
#include "karmada/karmada_metrics.h"
#include "karmada/placement_choice.h"
#include "karmada/placement_ledger.h"
#include "karmada/policy_status.h"
#include "karmada/target_policy.h"
#include "kube/controller_loop.h"
#include "kube/event_recorder.h"
#include "kube/kube_client.h"
#include "kube/kube_node.h"
#include "kube/lease_election.h"
#include "ledger/ledger.h"
#include "ledger/power_model.h"
#include "model_sources/model_loader.h"

namespace carbonroute::karmada {

// The Karmada Cluster objects' path (a cluster's grid location is its
// kube::kLocationLabel, as a Node's).
inline constexpr char kClustersPath[] = "/apis/cluster.karmada.io/v1alpha1/clusters";

struct KarmadaControllerOptions {
  absl::Duration resync = absl::Minutes(5);
  std::optional<absl::Duration> expected_runtime;  // scores by the forecast over it
  bool watch = false;                              // Run() only
  // How long the API server keeps each watch open (timeoutSeconds) before it starts again.
  absl::Duration watch_timeout = kube::kDefaultWatchTimeout;
  // Decide as usual but write nothing but Events ("would place on ...") and
  // the Lease: no target patch, no status; the ledger books in shadow mode.
  bool dry_run = false;
  // Prices the targets' resource templates for the ledger.
  ledger::PowerModel power_model;
};

// Builds the model at `now` from the configured sources.
using model_sources::ModelLoader;

class KarmadaController final : public controller_runtime::LoopController {
 public:
  // Books in `ledger` unless null (karmada/placement_ledger.h says what).
  KarmadaController(KarmadaControllerOptions options, const controller_runtime::Wiring& wiring,
                    ModelLoader load_model, KarmadaMetrics& metrics,
                    ledger::Ledger* ledger = nullptr);
  ~KarmadaController() override;

 private:
  struct Listed;
  // kube::Reconciler: lists everything into listed_ (an error, logged, when a
  // list failed); then, on a pass that listed while leading, reconciles.
  absl::StatusOr<kube::ListedVersions> List(absl::Time now) override;
  void Reconcile(const kube::ControllerPass& pass) override;
  // Lists everything; false (and logs) when a list failed.
  bool ListInto(Listed& listed);
  void ReconcilePolicy(const CarbonPolicy& policy, const Listed& listed,
                       const placement::PlacementModel& model, absl::Time now);
  // Writes the status (when it differs from the last written) and the
  // policy's Event for a new problem; `result` goes to the metrics.
  void Finish(const CarbonPolicy& policy, const PlacementChoice* choice,
              const std::vector<Condition>& conditions, const std::string& result, absl::Time now);
  void Event(const CarbonPolicy& policy, kube::EventType type, const std::string& reason,
             const std::string& message, absl::Time now);
  // Books the interval since the policy's previous pass in the ledger.
  void Book(const CarbonPolicy& policy, const TargetPolicy& target, const PlacementChoice& choice,
            const std::vector<placement::Candidate>& candidates,
            const std::vector<placement::ScoredCandidate>& scored,
            const placement::PlacementModel& model, bool moved, absl::Time now);
  // The power of the target's resource templates (requests × replicas), W;
  // nullopt when one cannot be read (logged once per policy and problem).
  std::optional<double> WorkloadWatts(const CarbonPolicy& policy, const TargetPolicy& target);

  const KarmadaControllerOptions options_;
  const kube::KubeClient& api_;
  const ModelLoader load_model_;
  KarmadaMetrics& metrics_;
  controller_runtime::PolicyWriters writers_;  // Events, statuses, absent CRDs

  std::unique_ptr<Listed> listed_;                     // the last successful lists
  std::map<std::string, std::string> problem_said_;    // policy uid → last problem Event
  std::map<std::string, CarbonPolicy> known_;          // policy uid → as last listed
  std::unique_ptr<PlacementLedger> placement_ledger_;  // null without a ledger
  // --dry-run: policy uid → the shares carbonroute would have written at its last pass,
  // and the placement last said in an Event.
  std::map<std::string, ClusterShares> would_place_;
  std::map<std::string, std::string> would_said_;
  std::map<std::string, std::string> energy_problem_said_;  // policy uid → last logged
};

}  // namespace carbonroute::karmada

#endif  // CARBONROUTE_KARMADA_KARMADA_CONTROLLER_H_
