// File: extender/shadow_ledger.h
//
// `scheduler-lite serve --shadow`: try carbonroute without handing it
// anything. It watches the bindings any scheduler makes (every namespace, or
// `namespaces`) and, for each Pod bound after it started, computes
// carbonroute's choice among the Nodes the Pod could have used
// (extender/node_fit.h: Ready and schedulable, its nodeSelector and required
// node affinity, the Nodes' NoSchedule/NoExecute taints tolerated, its CPU and
// memory requests beside the requests of the Pods already bound there, from
// the same watch), scored as the extender scores (placement/scoring.h, its
// delay_<from> limits included). The savings ledger (ledger/ledger.h) books,
// in mode "shadow", controller "extender", over the Pod's whole life as the
// enforced ledger does (extender/pod_ledger.h):
//   chosen          its energy priced where carbonroute would have put it;
//   counterfactual  the same energy where it really runs.
// Decisions: `moved` (carbonroute would have chosen another grid location),
// `kept` (the same one), `no_fit` (no Node fits it, or none within its
// latency limits). Pods bound before serve started are not booked; one bound
// before the first list of the Nodes or the first model is decided at the
// next accrual after both are in. The filters
// not simulated (inter-Pod affinity, topology spread, volume zones, ...) can
// make carbonroute's choice one kube-scheduler would refuse: shadow savings
// are estimates that may be too high (docs/savings.md).
//
// Thread safety: every method locks (the watch threads and the refresh
// thread). Ownership: borrows the ledger.
#ifndef CARBONROUTE_EXTENDER_SHADOW_LEDGER_H_
#define CARBONROUTE_EXTENDER_SHADOW_LEDGER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "extender/node_fit.h"
#include "extender/pod_ledger.h"
#include "extender/pod_watch.h"
#include "ledger/ledger.h"
#include "ledger/power_model.h"
#include "placement/scoring.h"

namespace carbonroute::extender {

struct ShadowLedgerOptions {
  std::set<std::string> namespaces;  // empty: every namespace
  absl::Duration longest_interval = absl::Minutes(10);
  ledger::PowerModel power_model;
  placement::ScoringOptions scoring;  // the weights and tolerance serve scores with
};

class ShadowLedger final : public PodObserver, public NodeObserver {
 public:
  // `started`: when serve started (Pods bound before it are not booked).
  ShadowLedger(ledger::Ledger& ledger, ShadowLedgerOptions options, absl::Time started);

  void Observed(const WatchedPod& pod, const placement::PlacementModel* model,
                absl::Time now) override;
  void Deleted(const std::string& uid, const placement::PlacementModel* model,
               absl::Time now) override;
  void Retain(const std::set<std::string>& uids, const placement::PlacementModel* model,
              absl::Time now) override;
  void NodesListed(std::map<std::string, FitNode> nodes) override;
  void NodeChanged(FitNode node) override;
  void NodeDeleted(const std::string& name) override;
  // Books every tracked Pod's interval since its last accrual; `metered`: as
  // PodLedger::Accrue's.
  void Accrue(const placement::PlacementModel* model, absl::Time now,
              const ledger::MeteredPods* metered = nullptr);

  std::size_t tracked() const;

 private:
  // Decides `pod` (seen bound at `seen`), scored at `now`: its decision, and
  // tracked from `seen` when it fits.
  void Decide(const WatchedPod& pod, const placement::PlacementModel& model, absl::Time seen,
              absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // carbonroute's choice for `pod` among the Nodes it fits ("" when none).
  std::string Choose(const WatchedPod& pod, const placement::PlacementModel& model,
                     absl::Time now) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // What bound Pods request of a Node, in kube-scheduler's units (millicores
  // rounded up, bytes): adding and removing Pods leaves no rounding behind.
  struct NodeUse {
    int64_t millicores = 0;
    int64_t bytes = 0;
  };
  static NodeUse UseOf(const kube::PodRequests& requests);
  // `uid` runs on `node` asking `requests` (again: its earlier binding replaced).
  void Bind(const std::string& uid, const std::string& node, const kube::PodRequests& requests)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void Unbind(const std::string& uid) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  ledger::Ledger& ledger_;
  const ShadowLedgerOptions options_;
  const absl::Time started_;
  mutable absl::Mutex mutex_;
  std::map<std::string, FitNode> nodes_ ABSL_GUARDED_BY(mutex_);
  // Every bound, unfinished Pod: uid → {its Node, its requests}, and their sum
  // per Node (NodeResourcesFit), kept as Pods come and go.
  std::map<std::string, std::pair<std::string, NodeUse>> bound_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, NodeUse> used_ ABSL_GUARDED_BY(mutex_);
  // chosen: the Node carbonroute would have chosen; counterfactual: where it runs.
  TrackedPods tracked_ ABSL_GUARDED_BY(mutex_);
  std::set<std::string> decided_ ABSL_GUARDED_BY(mutex_);  // uids decided (tracked or not)
  // Pods bound before the first list of the Nodes or the first model: uid → {the Pod, seen at}.
  std::map<std::string, std::pair<WatchedPod, absl::Time>> pending_ ABSL_GUARDED_BY(mutex_);
  bool nodes_listed_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace carbonroute::extender

#endif  // CARBONROUTE_EXTENDER_SHADOW_LEDGER_H_
