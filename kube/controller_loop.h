// File: kube/controller_loop.h
//
// The one loop every controller runs on (`scheduler-lite hold`,
// `scheduler-lite karmada --controller`, `scheduler-lite route --controller`,
// the collector's KEDA publisher; a new controller is its Reconciler, its
// metrics and its flags, run by controller_runtime/controller_manager.h).
//
// One pass (RunOnce), at the clock's now:
//   1. with a Lease (lease_election.h), ticks it: whether this replica leads.
//      A replica that has just become the leader lists at once;
//   2. lists (Reconciler::List) when a list is due: every `resync`, at once
//      when a watch saw a change, and no later than a time ListBy() asked for.
//      A replica that does not lead lists only with `list_while_following`.
//      A failed list changes nothing the controller knows and is tried again
//      within min(resync, kListRetry); a successful one (re)starts the watches
//      from the versions it returns (change_watch.h);
//   3. calls Reconciler::Reconcile with what the pass knows (ControllerPass).
// NextWake() is the earliest of the next list, the Lease's next tick and the
// Reconciler's own next due time; Run() waits for it on the Clock
// (base/clock.h), and within kWatchLatency when watching.
//
// The health answer (healthy(), for /healthz and readiness): the last
// successful list is at most three resyncs old; a replica that does not lead,
// and so does not list, is healthy. The liveness answer (turning(), for
// /livez): a pass ended within kMaxPassGap + three resyncs, whatever the API
// server answered (a failed list still ends its pass; every request is
// bounded by the client's timeout), so an API server outage never restarts
// the controller.
//
// Errors: the Reconciler's List returns them; the loop only schedules the
// retry. Ownership: borrows the client, the clock, the Reconciler and the
// Lease, which must outlive it; owns the watches. Thread safety: RunOnce,
// NextWake, ListBy and Run on one thread; healthy(), turning() and leading()
// from any.
#ifndef CARBONROUTE_KUBE_CONTROLLER_LOOP_H_
#define CARBONROUTE_KUBE_CONTROLLER_LOOP_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "kube/change_watch.h"
#include "kube/kube_client.h"
#include "kube/lease_election.h"

namespace carbonroute::kube {

// How soon Run() looks at what a watch reported.
inline constexpr absl::Duration kWatchLatency = absl::Seconds(1);
// The longest a failed list waits before it is tried again.
inline constexpr absl::Duration kListRetry = absl::Seconds(5);

// With three resyncs, how long the loop may go without ending a pass before
// turning() says it is stuck.
inline constexpr absl::Duration kMaxPassGap = absl::Minutes(1);

// The one liveness rule of every loop that turns every `period` (a
// controller's passes every resync, serve's model refreshes every --refresh):
// it turns while its last turn ended at most kMaxPassGap + three periods ago.
inline bool Turning(absl::Duration since_last_turn, absl::Duration period) {
  return since_last_turn <= kMaxPassGap + 3 * period;
}

// Each listed collection's path → the list's resourceVersion (where the
// watch of that collection starts).
using ListedVersions = std::map<std::string, std::string>;

// What one pass tells the controller.
struct ControllerPass {
  absl::Time now;
  bool leading = true;         // holds the Lease, or acts alone
  bool became_leader = false;  // leads now and did not at the previous pass
  std::string lease_error;     // why the Lease could not be held; "" when leading or none
  bool listed = false;         // this pass listed, successfully
};

// A controller, as the loop sees it.
class Reconciler {
 public:
  virtual ~Reconciler() = default;
  // Lists what the controller acts on and keeps it; the versions of the
  // watched collections. An error keeps what was known (the controller logs
  // and counts it).
  virtual absl::StatusOr<ListedVersions> List(absl::Time now) = 0;
  // The pass's work.
  virtual void Reconcile(const ControllerPass& pass) = 0;
  // The earliest time the controller has work of its own (a planned release).
  virtual absl::Time NextDue() const { return absl::InfiniteFuture(); }
};

struct ControllerLoopOptions {
  absl::Duration resync = absl::Minutes(5);
  // List while another replica leads (hold: every replica counts what is held).
  bool list_while_following = false;
  // Watched between lists (Run() only): a change is looked at within kWatchLatency.
  std::vector<WatchedCollection> watched;
  // How long the API server keeps each watch open before it is started again.
  absl::Duration watch_timeout = kDefaultWatchTimeout;
};

class ControllerLoop {
 public:
  // `lease`: null to act alone.
  ControllerLoop(ControllerLoopOptions options, const KubeClient& api, Clock& clock,
                 Reconciler& reconciler, LeaseElection* lease = nullptr);
  ~ControllerLoop();
  ControllerLoop(const ControllerLoop&) = delete;
  ControllerLoop& operator=(const ControllerLoop&) = delete;

  void RunOnce();
  absl::Time NextWake() const;
  // Passes until `stop` is notified; the watches stop with it.
  void Run(absl::Notification& stop);
  // Lists again no later than `when` (a write failed: the object may have changed).
  void ListBy(absl::Time when) { next_list_ = std::min(next_list_, when); }

  bool healthy() const;
  bool turning() const;
  bool leading() const { return leading_; }

 private:
  const ControllerLoopOptions options_;
  const KubeClient& api_;
  Clock& clock_;
  Reconciler& reconciler_;
  LeaseElection* const lease_;

  absl::Time next_list_ = absl::InfinitePast();
  std::atomic<int64_t> last_list_ok_unix_{0};
  std::atomic<int64_t> last_pass_end_unix_;  // construction, then each pass's end
  std::atomic<bool> leading_{true};          // until the first pass says otherwise
  bool led_last_pass_ = false;
  std::atomic<bool> changed_{false};  // a watch saw a change: list at the next pass
  std::vector<std::unique_ptr<ChangeWatch>> watches_;
};

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_CONTROLLER_LOOP_H_
