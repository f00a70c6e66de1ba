// File: rebalance/move_ledger.h
//
// The savings ledger's entries for re-placement (ledger/ledger.h, controller
// "rebalance"; docs/savings.md). A move is one owner's Pod evicted and the
// next Pod that owner creates (Moved, then Replaced when that Pod is bound):
//   the restart   booked once, when the replacement is bound: the restart's
//                 energy priced where it runs (basis "chosen") against 0 g
//                 (basis "counterfactual": staying restarts nothing), so the
//                 restart is a loss the stay must earn back;
//   the stay      every accrual while the replacement runs: its power (the
//                 power model, ledger/power_model.h) over the interval, priced
//                 at its Node's grid location (chosen) against the location
//                 it left (counterfactual: had it stayed).
// A move that did not pay back shows as a loss. `--dry-run` books the same in
// mode "shadow" for the Pod that would have moved: chosen is the location it
// would have gone to, from the decision on, its restart included.
// An interval whose intensity is unknown, or that mixes average and marginal
// readings, adds nothing and is counted as skipped (unknown_intensity,
// mixed_emissions_types); one longer than `longest_interval` (the controller
// was down or not leading) is skipped as a gap.
//
// Ownership: borrows the ledger (null: nothing is booked) and the metrics.
// Thread safety: one thread (the controller's loop).
#ifndef CARBONROUTE_REBALANCE_MOVE_LEDGER_H_
#define CARBONROUTE_REBALANCE_MOVE_LEDGER_H_

#include <map>
#include <set>
#include <string>

#include "absl/time/time.h"
#include "ledger/ledger.h"
#include "placement/placement_model.h"
#include "rebalance/rebalance_metrics.h"

namespace carbonroute::rebalance {

inline constexpr char kLedgerController[] = "rebalance";

// A Pod whose stay is booked.
struct Stay {
  std::string namespace_name, policy;
  std::string chosen_location;          // where it runs (or would, in a dry run)
  std::string counterfactual_location;  // where it ran before the move
  double watts = 0;
  ledger::LedgerMode mode = ledger::LedgerMode::kEnforced;
  absl::Time last;  // booked up to here
};

class MoveLedger {
 public:
  MoveLedger(ledger::Ledger* ledger, RebalanceMetrics& metrics,
             absl::Duration longest_interval = absl::Minutes(10))
      : ledger_(ledger), metrics_(metrics), longest_interval_(longest_interval) {}

  // The Pod `uid` starts a stay at `now` (its replacement was bound, or in a
  // dry run it would have moved); its restart of `restart_joules`
  // (`declared`: the policy's joulesPerStart, else the power model's) is booked.
  // Returns the restart's grams at the chosen location (0 when unknown).
  double Start(const std::string& uid, Stay stay, double restart_joules, bool declared,
               const placement::PlacementModel& model, absl::Time now);
  // Books every stay up to `now` and ends those whose Pod is not in `running`.
  void Accrue(const std::set<std::string>& running, const placement::PlacementModel& model,
              absl::Time now);
  // Ends the stay of `uid`, booked up to now (it moved again).
  void End(const std::string& uid) { stays_.erase(uid); }

  bool Staying(const std::string& uid) const { return stays_.contains(uid); }
  std::size_t size() const { return stays_.size(); }

 private:
  ledger::Ledger* const ledger_;
  RebalanceMetrics& metrics_;
  const absl::Duration longest_interval_;
  std::map<std::string, Stay> stays_;  // by Pod uid
};

}  // namespace carbonroute::rebalance

#endif  // CARBONROUTE_REBALANCE_MOVE_LEDGER_H_
