// File: hold/hold_controller.h
//
// `scheduler-lite hold`: holds opted-in Jobs and Pods until the cleanest
// window before their deadline, then releases them (README "Waiting in the
// cluster"; the decision in hold_plan.h, the writes in hold_patches.h).
//
// One pass (RunOnce), at the clock's now:
//   1. every `resync`, and when a watch saw a change (`watch`: the lists'
//      resourceVersions start kube/change_watch.h's watches), lists the Jobs and
//      Pods the label selector admits (paginated, ListHeld); a failed list
//      keeps the objects known;
//   2. fetches the forecast of every location a held object may run in
//      that was not fetched within `forecast_refresh` (a failed fetch keeps
//      the last forecast: it still covers most of its horizon);
//   3. with a Lease (kube/lease_election.h), acts only while leading;
//   4. for each object: one that opted in but is not held (a Job not
//      suspended, a Pod without the gate) is reported once (a log line naming
//      it and what to do) and left alone; one already released (carbonroute.io/released-at)
//      is skipped; the others are planned (PlanRelease) and, when the plan's
//      time has come, released (a PATCH); else their annotations say the
//      plan (written again only when it moves). Once the start an object's
//      annotation shows has come, it is released then, even if another
//      location's equally clean window now starts a moment later. A PATCH answered 404 means
//      the object was deleted: it is forgotten, no error. Each release is
//      also an Event on the object (reason CleanWindowRelease; `kubectl
//      describe` shows it), when an EventRecorder is given; an Event that
//      cannot be written is counted (error "event") and changes nothing else;
//   5. with a ledger, while leading: records each object that finished and
//      books the runs whose intervals have passed (hold/hold_ledger.h).
// The passes run on kube/controller_loop.h (the Lease, the lists and
// watches, the wake-up, the health answer); this class is the loop's
// Reconciler. Run() wakes at the earliest of the next list, the next Lease
// renewal and the earliest planned release, so a release happens when
// planned (not at the next resync).
//
// The controller holds no state of its own beyond what the API objects and
// the forecasts say: a restart lists everything again, reads each object's
// plan from its annotations, and releases at once any object already past
// its latest start.
//
// Ownership: borrows every argument. Thread safety: RunOnce/Run on one
// thread; healthy() from any. Logs through spdlog's default logger (cli/logging.h).
#ifndef CARBONROUTE_HOLD_HOLD_CONTROLLER_H_
#define CARBONROUTE_HOLD_HOLD_CONTROLLER_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "controller_runtime/loop_controller.h"
#include "controller_runtime/object_events.h"
#include "hold/forecast_source.h"
#include "hold/held_object.h"
#include "hold/hold_ledger.h"
#include "hold/hold_metrics.h"
#include "hold/hold_patches.h"
#include "hold/hold_plan.h"
#include "kube/controller_loop.h"
#include "kube/event_recorder.h"
#include "kube/kube_client.h"
#include "kube/lease_election.h"
#include "ledger/ledger.h"
#include "ledger/power_model.h"

namespace carbonroute::hold {

// PATCHes in flight at once (releases first): a release is due when it is
// sent, and 100 due at the same second must not wait for each other's round trips.
inline constexpr std::size_t kConcurrentWrites = 8;

struct HoldControllerOptions {
  std::string selector = "carbonroute.io/defer=true";
  absl::Duration resync = absl::Seconds(30);
  absl::Duration forecast_refresh = absl::Minutes(5);
  std::map<std::string, std::string> region_locations;  // region → grid location
  // Watch for changes between lists (kube/change_watch.h): a new object is planned
  // within kube::kWatchLatency instead of within `resync`. Run() only.
  bool watch = false;
  // How long the API server keeps each watch open (timeoutSeconds) before it starts again.
  absl::Duration watch_timeout = kube::kDefaultWatchTimeout;
  // Shadow mode: plan as usual but write nothing but Events and the Lease. An
  // object that opted in and is not held (run without suspend or the gate)
  // gets one Event, CleanWindowWouldHold, when first seen, saying when and where it would have
  // been released and the intensity expected then against starting now; an
  // object that is held is left held (said once in the log): it is the
  // user's to hold, a dry run releases nothing.
  bool dry_run = false;
  // Prices the runs for the savings ledger: measured when `run_meter` is
  // set (hold --prometheus), else (or when it measured nothing) the model.
  ledger::PowerModel power_model;
  ledger::PodsMeter run_meter;
};

// One release, as the controller did it (for tests and the log).
struct Release {
  std::string object;  // HeldObject::Describe()
  absl::Time at;
  HoldPlan plan;
  std::optional<double> intensity_at_creation;
};

class HoldController final : public controller_runtime::LoopController {
 public:
  // `ledger`: null to book nothing (shadow mode with dry_run).
  HoldController(HoldControllerOptions options, const controller_runtime::Wiring& wiring,
                 ForecastSource& forecasts, HoldMetrics& metrics, ledger::Ledger* ledger = nullptr);

  const std::vector<Release>& releases() const { return releases_; }

 private:
  // kube::Reconciler
  absl::StatusOr<kube::ListedVersions> List(absl::Time now) override;
  void Reconcile(const kube::ControllerPass& pass) override;
  absl::Time NextDue() const override { return next_release_; }
  void RefreshForecasts(const std::set<std::string>& needed, absl::Time now);
  // Step 5: the ledger's records and bookings of this pass.
  void BookRuns(absl::Time now, bool leading);
  struct Assessment;
  // What one pass knows of one held object, worked out once: its terms, the
  // locations it may run in, the start its annotation shows, then its plan.
  static Assessment Assess(const HeldObject& object,
                           const std::map<std::string, std::string>& region_locations);
  void PlanFor(Assessment& assessment, absl::Time now) const;
  struct Action;
  // The PATCH `object` needs now (its plan, or its release), if any.
  std::optional<Action> Decide(HeldObject& object, const Assessment& assessment, absl::Time now,
                               bool leading);
  // Every PATCH, kConcurrentWrites at a time; a release's Event right after its PATCH.
  void Send(std::vector<Action>& actions, absl::Time now);
  void Apply(Action& action, absl::Time now);
  absl::Status RecordRelease(const Action& action, absl::Time now) const;

  const HoldControllerOptions options_;
  const kube::KubeClient& api_;
  ForecastSource& source_;
  HoldMetrics& metrics_;
  controller_runtime::ObjectEvents events_;

  std::vector<HeldObject> objects_;
  std::set<std::string> reported_;  // uids reported as opted in but not held
  // --dry-run: the uids whose CleanWindowWouldHold Event was said.
  std::set<std::string> would_said_;
  // Records (once per object, when first seen) what a dry run would have done with it.
  void SayWouldHold(const HeldObject& object, const HoldPlan& plan, absl::Time now);
  Forecasts forecasts_;
  std::map<std::string, absl::Time> fetched_;  // location → last attempt
  std::vector<std::string> cluster_;
  absl::Time cluster_fetched_ = absl::InfinitePast();
  absl::Time next_release_ = absl::InfiniteFuture();
  std::vector<Release> releases_;
  std::unique_ptr<HoldLedger> hold_ledger_;  // null without a ledger
  bool was_leading_ = false;
};

}  // namespace carbonroute::hold

#endif  // CARBONROUTE_HOLD_HOLD_CONTROLLER_H_
