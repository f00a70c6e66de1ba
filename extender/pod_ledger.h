// File: extender/pod_ledger.h
//
// What `scheduler-lite serve` (the extender) books in the savings ledger
// (ledger/ledger.h), controller "extender", mode "enforced"
// (docs/savings.md "What it saved in your cluster"):
//
//   chosen:          the Pod's energy priced at the grid location of the
//                    Node it was bound to;
//   counterfactual:  the same energy priced at the mean intensity of the
//                    Nodes kube-scheduler offered it (what a carbon-blind
//                    choice among them would be on average): the Nodes that
//                    passed carbonroute's last /filter for it, else its
//                    /prioritize list, each Node counted once;
//   energy:          what Kepler or DCGM measured of it, when serve reads
//                    the emissions rules' records through --prometheus
//                    (ledger/metered_energy.h; energy_source "kepler",
//                    "dcgm"); else its requests through the power model
//                    (ledger/power_model.h; energy_source "model");
// accrued over the Pod's whole life, interval by interval (Accrue, every
// model refresh), each interval priced at the readings of the model current
// at its end: a Pod placed at noon that runs all night is priced at night's
// intensities too. Its life ends when it Succeeded or Failed, or is deleted.
//
// Measured energy comes in windows (MeterWindow), each minute once. A Pod
// measured before, or running on a metered Node (one a window measured any
// Pod on within `longest_interval`), is expected to be measured: a window
// without its minutes books nothing for it (they come in a later one) until
// `longest_interval` has passed without any; then the model (from then on,
// unless a window measures it again), and one `unknown_energy` skip for the
// time in between. A measured Pod that ends is
// booked from the windows that still hold its last minutes, for up to
// `longest_interval`. A Pod first seen before its Node was known to be
// metered (serve just started) may have a minute priced twice, by the model
// and then by the meter (docs/savings.md).
//
// kube-scheduler tells the extender only scores, so serve learns the binding
// from a Pod watch (Observed, Deleted: spec.nodeName set). A scored Pod's
// candidates are kept as counts per grid location (bounded: at most
// `max_scored` Pods, each for `scored_ttl`; the oldest go first). Decisions
// (carbonroute_ledger_decisions_total{controller="extender"}): `moved` when
// the candidates spanned more than one grid location (the score could move
// it), `kept` when they were all in one; a bound Pod carbonroute never scored
// is `not_scored`, one bound before this process started and not scored
// since is `restart` (its candidates were lost), both counted only for the
// schedulers (spec.schedulerName) carbonroute has scored a Pod for. Skipped
// intervals: a Node or candidate without a reading (`unknown_intensity`),
// requests that cannot be read (`unknown_energy`), readings that mix average
// and marginal (`mixed_emissions_types`), an interval longer than
// `longest_interval` (`gap`: serve could not vouch for it).
//
// Thread safety: every method locks; Scored is called from the HTTP
// threads, the rest from the watch and refresh threads. Ownership: borrows
// the ledger.
#ifndef CARBONROUTE_EXTENDER_POD_LEDGER_H_
#define CARBONROUTE_EXTENDER_POD_LEDGER_H_

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "extender/node_fit.h"
#include "kube/pod_requests.h"
#include "ledger/ledger.h"
#include "ledger/metered_energy.h"
#include "ledger/power_model.h"
#include "placement/placement_model.h"
#include "placement/scoring.h"

namespace carbonroute::extender {

// spec.schedulerName when a Pod does not set it, as the API defaults it.
inline constexpr char kDefaultSchedulerName[] = "default-scheduler";

inline constexpr char kExtenderController[] = "extender";

// A location's reading in `model`; null when it has none ("" has none).
const placement::LocationCarbon* ReadingAt(const placement::PlacementModel& model,
                                           const std::string& location);

// How a ledger books a Pod's intervals.
struct PodBookingRules {
  ledger::LedgerMode mode = ledger::LedgerMode::kEnforced;
  absl::Duration longest_interval = absl::Minutes(10);
  ledger::PowerModel power_model;
};

// A Pod to book: its energy priced at `chosen_node`'s grid location against
// the mean intensity of `counterfactual_locations` (location → Nodes). The
// enforced ledger's chosen is where it runs and its counterfactual the
// offered Nodes; shadow mode's (extender/shadow_ledger.h) chosen is
// carbonroute's choice and its counterfactual where it runs.
struct PodInterval {
  std::string namespace_name, name;
  std::string runs_on;  // the Node it is bound to (whose meter measures it)
  std::string chosen_node;
  std::map<std::string, int> counterfactual_locations;
  std::optional<kube::PodRequests> requests;
};

// The Pods a ledger books, by uid, each from its last accrual, interval by
// interval (skipped with the reasons the header lists). The location names
// are kept once (a tracked Pod holds 16 bytes a location). Not thread-safe:
// its owner locks.
class TrackedPods {
 public:
  TrackedPods(ledger::Ledger& ledger, PodBookingRules rules) : ledger_(ledger), rules_(rules) {}

  bool contains(const std::string& uid) const { return pods_.contains(uid); }
  std::size_t size() const { return pods_.size(); }
  // Tracked from `now`.
  void Add(const std::string& uid, const PodInterval& pod, absl::Time now);
  // Its requests changed (they become readable).
  void SetRequests(const std::string& uid, const kube::PodRequests& requests);
  // Its last interval booked, then no longer tracked (a measured Pod: booked
  // from the windows that still hold its last minutes, then dropped).
  void Finish(const std::string& uid, const placement::PlacementModel* model, absl::Time now);
  // Every Pod not in `uids` finished.
  void Retain(const std::set<std::string>& uids, const placement::PlacementModel* model,
              absl::Time now);
  // Every Pod's interval since its last accrual; `metered`: what the meters
  // measured in the window read now (null: nothing read).
  void AccrueAll(const placement::PlacementModel* model, absl::Time now,
                 const ledger::MeteredPods* metered = nullptr);

 private:
  struct Tracked {
    std::string namespace_name, name, chosen_node;
    const std::string* runs_on = nullptr;                            // into names_
    std::vector<std::pair<const std::string*, int>> counterfactual;  // into names_
    std::optional<kube::PodRequests> requests;
    absl::Time last;
    // Since when the meter has measured it, or was expected to (its last
    // measured window, or when it was first seen on a metered Node).
    std::optional<absl::Time> metered_at;
    bool meter_gave_up = false;  // silent on it for longer than an interval may be: the model
    std::optional<absl::Time> finished_at;  // measured and ended: drained from later windows
  };
  // Books `pod`'s interval up to `now`, from `measured` when given.
  void Book(Tracked& pod, const placement::PlacementModel* model, absl::Time now,
            const std::vector<ledger::PodEnergy>* measured);
  // What `metered` holds for `pod` (null: nothing).
  static const std::vector<ledger::PodEnergy>* MeasuredFor(const Tracked& pod,
                                                           const ledger::MeteredPods* metered);

  ledger::Ledger& ledger_;
  const PodBookingRules rules_;
  std::set<std::string> names_;                      // every location and Node name seen
  std::map<std::string, Tracked> pods_;              // by uid
  std::map<std::string, absl::Time> metered_nodes_;  // Node → the last window that measured on it
};

// What the extender saw of a Pod in one request.
struct ScoredPod {
  std::string uid, namespace_name, name, scheduler_name;
  std::map<std::string, int> candidate_locations;  // grid location ("" unknown) → Nodes
  bool from_filter = false;  // the Nodes that passed /filter (else a /prioritize list)
};

// A Pod as the watch sees it.
struct WatchedPod {
  std::string uid, namespace_name, name, scheduler_name;
  std::string node;                           // spec.nodeName; "" while unbound
  std::optional<kube::PodRequests> requests;  // absent: unreadable
  bool finished = false;                      // status.phase Succeeded or Failed
  std::optional<absl::Time> scheduled_at;     // the PodScheduled condition's time
  FitPod fit;                                 // where it may run (serve --shadow)
  placement::Workload workload;               // its delay_<from> labels (serve --shadow)

  // Whether its PodScheduled time says it was bound before `t`. The API server writes that
  // time in whole seconds (metav1.Time), so a Pod bound in `t`'s own second, even after `t`,
  // reads as bound at the second's start: compared with `t`'s second, it is not before.
  // False when the time is unknown.
  bool ScheduledBefore(absl::Time t) const {
    return scheduled_at && *scheduled_at < absl::FromUnixSeconds(absl::ToUnixSeconds(t));
  }
};

// What the Pod watch (extender/pod_watch.h) tells a ledger.
class PodObserver {
 public:
  virtual ~PodObserver() = default;
  // A Pod added or changed; `model`: the current one (null: none yet).
  virtual void Observed(const WatchedPod& pod, const placement::PlacementModel* model,
                        absl::Time now) = 0;
  virtual void Deleted(const std::string& uid, const placement::PlacementModel* model,
                       absl::Time now) = 0;
  // After a whole list of the Pods (`uids`): a Pod it no longer has was
  // deleted while the watch was down.
  virtual void Retain(const std::set<std::string>& uids, const placement::PlacementModel* model,
                      absl::Time now) = 0;
};

struct PodLedgerOptions {
  std::size_t max_scored = 100'000;
  absl::Duration scored_ttl = absl::Minutes(10);
  absl::Duration longest_interval = absl::Minutes(10);
  ledger::PowerModel power_model;
};

class PodLedger final : public PodObserver {
 public:
  // `started`: when this process started (a Pod bound before it and not
  // scored since counts as `restart`).
  PodLedger(ledger::Ledger& ledger, PodLedgerOptions options, absl::Time started);

  // A /filter's passing Nodes or a /prioritize list; a /prioritize list does
  // not replace a /filter's record of the same Pod.
  void Scored(ScoredPod pod, absl::Time now);
  // A Pod added or changed: tracked from its binding; its last interval
  // booked when it finished. `model`: the current one (null: none yet).
  void Observed(const WatchedPod& pod, const placement::PlacementModel* model,
                absl::Time now) override;
  // A Pod deleted: its last interval booked.
  void Deleted(const std::string& uid, const placement::PlacementModel* model,
               absl::Time now) override;
  // After a whole list of the Pods (`uids`): a tracked Pod it no longer has
  // was deleted while the watch was down; its last interval is booked.
  void Retain(const std::set<std::string>& uids, const placement::PlacementModel* model,
              absl::Time now) override;
  // Books every tracked Pod's interval since its last accrual; `metered`:
  // what the meters measured in the window read now (null: nothing read).
  void Accrue(const placement::PlacementModel* model, absl::Time now,
              const ledger::MeteredPods* metered = nullptr);

  std::size_t tracked() const;
  std::size_t scored() const;
  // Whether `uid`'s candidates came from a /filter (a /prioritize list of it
  // would not replace them).
  bool ScoredByFilter(const std::string& uid) const;

 private:
  void Expire(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  ledger::Ledger& ledger_;
  const PodLedgerOptions options_;
  const absl::Time started_;
  mutable absl::Mutex mutex_;
  std::map<std::string, std::pair<ScoredPod, absl::Time>> scored_ ABSL_GUARDED_BY(mutex_);
  std::deque<std::pair<absl::Time, std::string>> scored_order_ ABSL_GUARDED_BY(mutex_);
  TrackedPods tracked_ ABSL_GUARDED_BY(mutex_);
  std::set<std::string> schedulers_ ABSL_GUARDED_BY(mutex_);
  std::set<std::string> decided_ ABSL_GUARDED_BY(mutex_);  // unscored uids already counted
};

}  // namespace carbonroute::extender

#endif  // CARBONROUTE_EXTENDER_POD_LEDGER_H_
