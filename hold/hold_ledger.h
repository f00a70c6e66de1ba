// File: hold/hold_ledger.h
//
// What the hold controller books in the savings ledger (ledger/ledger.h), one
// entry per held object once it has run and both its intervals have passed
// (docs/savings.md, "What it saved in your cluster"):
//
//   enforced:  chosen, the hours it really ran, [status start, end];
//              counterfactual, the same object run at once: from its creation
//              for its actual runtime (what would have happened without
//              carbonroute).
//   shadow     (--dry-run: nothing was held): chosen, the start carbonroute
//              would have released it at (its plan when first seen) for its
//              actual runtime; counterfactual, the hours it really ran.
//   energy:    what Kepler and DCGM measured of its Pods over the hours it
//              really ran, when a meter is set (hold --prometheus: the
//              emissions rules' records, ledger/metered_energy.h; asked
//              kMeteredRunLag after the run, energy_source "kepler", "dcgm");
//              else, or when they hold no minute of it, the power model
//              (ledger/power_model.h) of what each of its Pods requests × the
//              Pods running at once (a Job's parallelism, 1 for a Pod) × the
//              runtime; energy_source "model".
//   intensity: the mean of the readings the collectors observed at its grid
//              location over each interval (ForecastSource::Observed, the
//              Carbon Aware SDK's average-carbon-intensity over the cache):
//              the location it was released in (the carbonroute.io/release-location
//              annotation), else the one location it could run in; in shadow
//              mode the location of the plan.
// The decision is `moved` when the release came (or would have come) a minute
// or more after the object was first seen, `kept` otherwise.
//
// Only objects that finish while this instance leads are booked (a previous
// leader booked the earlier ones; a restart forgets what it booked), and in
// shadow mode only those whose plan it saw before they started. An interval
// the collectors hold no readings for (yet: the last hour may not be polled)
// is asked again each pass until kPricingGrace after it ended, then counted as
// skipped (unknown_intensity); an object whose requests cannot be read is
// skipped at once (unknown_energy). A run is priced from its record here: a
// Job deleted after it finished (ttlSecondsAfterFinished) is still booked.
//
// Thread safety: one thread (the controller's pass). Ownership: borrows the
// ledger and the readings' source.
#ifndef CARBONROUTE_HOLD_HOLD_LEDGER_H_
#define CARBONROUTE_HOLD_HOLD_LEDGER_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "absl/time/time.h"
#include "hold/forecast_source.h"
#include "hold/held_object.h"
#include "ledger/ledger.h"
#include "ledger/metered_energy.h"
#include "ledger/power_model.h"

namespace carbonroute::hold {

// The `controller` label of the hold controller's ledger series.
inline constexpr char kHoldController[] = "hold";
// How long after an interval ended its readings are asked for before the run
// is skipped: collectors poll hourly readings (an hour's reading arrives
// within the next poll) and keep them in their cache.
inline constexpr absl::Duration kPricingGrace = absl::Hours(3);
// A release this long after the object was first seen moved it in time.
inline constexpr absl::Duration kMovedAfter = absl::Minutes(1);

class HoldLedger {
 public:
  HoldLedger(ledger::Ledger& ledger, ledger::LedgerMode mode, ForecastSource& readings,
             ledger::PowerModel power_model)
      : ledger_(ledger), mode_(mode), readings_(readings), power_model_(power_model) {}

  // Measured energy for the runs from now on.
  // An error from it: asked again next pass, until kPricingGrace.
  void SetMeter(ledger::PodsMeter meter) { meter_ = std::move(meter); }
  // This instance leads from `since` (a new leader, or a first pass): objects
  // that finished earlier are not booked.
  void LeadingSince(absl::Time since) { leading_since_ = since; }
  // Shadow mode: what carbonroute would have done with `object` (not held),
  // said once when first seen at `now`: released at `start` in `location`.
  void WouldStart(const HeldObject& object, absl::Time now, absl::Time start,
                  const std::string& location);
  // Whether `object` is a finished run, ended while this instance leads, not
  // yet recorded: what Observe would look at (a caller skips the others'
  // location lookups).
  bool Unrecorded(const HeldObject& object) const;
  // One listed object at a pass while leading: a finished run not yet booked
  // is recorded for pricing. `only_location`: the one grid location the object
  // could run in, "" when it could run in several.
  void Observe(const HeldObject& object, const std::string& only_location);
  // Prices and books the recorded runs whose intervals have both ended.
  void BookDue(absl::Time now);
  // Forgets the objects no longer listed (their runs, if recorded, stay pending).
  void KeepOnly(const std::set<std::string>& listed_uids);
  // Runs recorded and not yet booked or skipped.
  std::size_t pending() const { return pending_.size(); }

 private:
  struct Run {
    std::string namespace_name, location;
    std::string pods;  // its Pods, ledger::RunPods
    absl::Time chosen_start, counterfactual_start;
    absl::Duration runtime;
    std::optional<double> watts;  // absent: its requests could not be read
    bool moved = false;
  };
  struct Would {
    absl::Time seen, start;
    std::string location;
  };
  // Books `run`, or says why it cannot yet (false: ask again later).
  bool Price(const Run& run, absl::Time now);
  void Skip(const Run& run, absl::string_view reason, EmissionsType emissions_type);

  ledger::Ledger& ledger_;
  const ledger::LedgerMode mode_;
  ForecastSource& readings_;
  const ledger::PowerModel power_model_;
  ledger::PodsMeter meter_;
  absl::Time leading_since_ = absl::InfiniteFuture();
  std::set<std::string> recorded_;      // uids whose run was recorded
  std::map<std::string, Would> would_;  // shadow: uid → its plan when first seen
  std::map<std::string, Run> pending_;  // uid → a run waiting to be priced
};

}  // namespace carbonroute::hold

#endif  // CARBONROUTE_HOLD_HOLD_LEDGER_H_
