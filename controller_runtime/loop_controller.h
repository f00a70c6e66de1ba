// File: controller_runtime/loop_controller.h
//
// The base of every controller that runs on the one loop
// (kube/controller_loop.h): hold, Karmada and routing. It owns the loop and is
// its Reconciler (a controller overrides List and Reconcile, and NextDue when
// it has work of its own), and answers what its manager
// (controller_manager.h: Managed) and its tests ask of it: a pass now
// (RunOnce), passes until stopped (Run), when it wakes next, and the health
// and liveness answers (kube::ControllerLoop's).
//
// Ownership: the loop borrows the client, the clock and the Lease, which must
// outlive the controller. Thread safety: RunOnce, NextWake and Run on one
// thread; healthy() and turning() from any (the server's handlers).
#ifndef CARBONROUTE_CONTROLLER_RUNTIME_LOOP_CONTROLLER_H_
#define CARBONROUTE_CONTROLLER_RUNTIME_LOOP_CONTROLLER_H_

#include <utility>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "kube/controller_loop.h"
#include "kube/event_recorder.h"
#include "kube/kube_client.h"
#include "kube/lease_election.h"

namespace carbonroute::controller_runtime {

// What a controller is wired to, all borrowed and outliving it (a
// ControllerManager's, controller_manager.h, or a test's).
struct Wiring {
  const kube::KubeClient& api;
  Clock& clock;
  kube::LeaseElection* lease = nullptr;         // null: act alone
  const kube::EventRecorder* events = nullptr;  // null: record no Events
};

class LoopController : private kube::Reconciler {
 public:
  LoopController(const LoopController&) = delete;
  LoopController& operator=(const LoopController&) = delete;

  void RunOnce() { loop_.RunOnce(); }
  absl::Time NextWake() const { return loop_.NextWake(); }
  // Passes until `stop` is notified.
  void Run(absl::Notification& stop) { loop_.Run(stop); }
  // The last lists succeeded within three resyncs (or this replica does not lead).
  bool healthy() const { return loop_.healthy(); }
  // Its loop ends passes, whatever the API server answers.
  bool turning() const { return loop_.turning(); }

 protected:
  // The loop calls no virtual before the first pass.
  LoopController(kube::ControllerLoopOptions options, const Wiring& wiring)
      : loop_(std::move(options), wiring.api, wiring.clock, *this, wiring.lease) {}
  ~LoopController() override = default;

  kube::ControllerLoop& loop() { return loop_; }

 private:
  kube::ControllerLoop loop_;
};

}  // namespace carbonroute::controller_runtime

#endif  // CARBONROUTE_CONTROLLER_RUNTIME_LOOP_CONTROLLER_H_
