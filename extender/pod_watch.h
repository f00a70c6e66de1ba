// File: extender/pod_watch.h
//
// The Pod watch behind the extender's savings ledger (extender/pod_ledger.h):
// lists and watches every Pod of the cluster (GET and watch /api/v1/pods,
// kube/list_watch.h) and tells a ledger (PodObserver: the extender's
// PodLedger, or serve --shadow's ShadowLedger) of each binding, finish and
// deletion, priced with the model current at the time (ModelStore); after
// each whole list, a tracked Pod the list no longer has is booked as deleted.
//
//   ReadWatchedPod: metadata.uid, namespace, name; spec.schedulerName
//   (default-scheduler when absent, as the API defaults it), spec.nodeName;
//   the requests (kube/pod_requests.h; absent when unreadable, the ledger
//   then skips as unknown_energy); status.phase Succeeded or Failed; the
//   PodScheduled condition's lastTransitionTime; where it may run
//   (extender/node_fit.h) and its delay_<from> labels (a value that is not a
//   number of milliseconds is left out).
//
// NodeWatch: the Nodes as serve --shadow's filters read them (ReadFitNode),
// for the ShadowLedger; a Node that cannot be read (an allocatable that is
// not a quantity) is left out, no candidate, rather than failing the list.
//
// While the Pod watch's requests fail (an API server that cannot be reached,
// a 403), the ledger books nothing: PodWatch says so, a warning at the first
// failure and then at most every kFailureWarningEvery, and Failing() names
// the failure until the Pods are listed again (serve's readiness and
// carbonroute_scheduler_pod_watch_up read it).
//
// Errors: ReadWatchedPod returns kInvalidArgument naming the field for an
// object without metadata.uid.
// Ownership: borrows the client, the clock, the models and the ledger.
// Thread safety: Run() on one thread.
#ifndef CARBONROUTE_EXTENDER_POD_WATCH_H_
#define CARBONROUTE_EXTENDER_POD_WATCH_H_

#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "base/clock.h"
#include "extender/extender_service.h"
#include "extender/node_fit.h"
#include "extender/pod_ledger.h"
#include "kube/json_view.h"
#include "kube/kube_client.h"
#include "kube/list_watch.h"

namespace carbonroute::extender {

absl::StatusOr<WatchedPod> ReadWatchedPod(const kube::JsonField& pod);

class PodWatch final : private kube::ListWatchHandler {
 public:
  // `watch_timeout`: how long the API server keeps each watch of the Pods open.
  PodWatch(const kube::KubeClient& client, Clock& clock, const ModelStore& models,
           PodObserver& ledger, absl::Duration watch_timeout = kube::kDefaultWatchTimeout);

  // Lists and watches until `stop` is notified.
  void Run(absl::Notification& stop) { list_watch_.Run(stop); }

  // The failure that keeps the ledger from booking ("list: ..."), with how long
  // it has lasted; "" once the Pods were listed and nothing failed since (and
  // before the first request). Thread safety: any thread.
  std::string Failing() const;
  static constexpr absl::Duration kFailureWarningEvery = absl::Minutes(1);

 private:
  void OnListStart() override { listed_.clear(); }
  absl::Status OnListItem(const kube::JsonField& item) override;
  void OnListed(const std::string& resource_version, int pages) override;
  absl::Status OnEvent(kube::WatchEventType type, const kube::JsonField& object) override;
  void OnFailure(const std::string& what) override;
  void OnRecovered() override;
  // How long the watch has failed at `now`, in whole seconds ("4s").
  std::string FailingFor(absl::Time now) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  Clock& clock_;
  const ModelStore& models_;
  PodObserver& ledger_;
  kube::ListWatch list_watch_;
  std::set<std::string> listed_;  // the uids of the list in progress
  mutable absl::Mutex mutex_;
  std::string failure_ ABSL_GUARDED_BY(mutex_);  // "" when none
  absl::Time failing_since_ ABSL_GUARDED_BY(mutex_) = absl::InfiniteFuture();
  absl::Time last_warning_ ABSL_GUARDED_BY(mutex_) = absl::InfinitePast();
};

// What the Node watch tells.
class NodeObserver {
 public:
  virtual ~NodeObserver() = default;
  // A whole list: these are every Node there is.
  virtual void NodesListed(std::map<std::string, FitNode> nodes) = 0;
  virtual void NodeChanged(FitNode node) = 0;
  virtual void NodeDeleted(const std::string& name) = 0;
};

class NodeWatch final : private kube::ListWatchHandler {
 public:
  NodeWatch(const kube::KubeClient& client, Clock& clock, NodeObserver& observer);
  void Run(absl::Notification& stop) { list_watch_.Run(stop); }

 private:
  void OnListStart() override { listing_.clear(); }
  absl::Status OnListItem(const kube::JsonField& item) override;
  void OnListed(const std::string& resource_version, int pages) override;
  absl::Status OnEvent(kube::WatchEventType type, const kube::JsonField& object) override;

  NodeObserver& observer_;
  kube::ListWatch list_watch_;
  std::map<std::string, FitNode> listing_;
};

}  // namespace carbonroute::extender

#endif  // CARBONROUTE_EXTENDER_POD_WATCH_H_
