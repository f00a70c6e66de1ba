// File: karmada/placement_ledger.h
//
// What the Karmada controller books in the savings ledger (ledger/ledger.h),
// one interval per policy per pass: the interval from the policy's previous
// pass to this one ran on the clusters its target named during it.
//
//   energy:          the target's resource templates' requests × replicas,
//                    through the power model (energy_source "model"; member
//                    clusters' Kepler is rarely visible from the host);
//   chosen:          enforced, the clusters the target named in the interval
//                    (carbonroute's placement), by their static weights, else
//                    in equal shares (Divided, Karmada's default); in shadow
//                    mode (--dry-run), what carbonroute would have written at
//                    the previous pass;
//   counterfactual:  enforced, the replicas in equal shares over every
//                    cluster the policy lists (Karmada's placement without
//                    carbonroute); in shadow mode, what really ran (the
//                    target as its owner left it).
// Each interval is priced at the clusters' readings of the pass that closes
// it (hourly readings, passes every resync: at most one resync off at an
// hour's change). An interval longer than `longest_interval` (the controller
// was down or not leading), with an unknown energy or intensity, or over
// clusters whose readings mix average and marginal, or of a target whose
// replicas are Duplicated rather than Divided, is counted as skipped.
//
// Thread safety: one thread (the controller's pass). Ownership: borrows the ledger.
#ifndef CARBONROUTE_KARMADA_PLACEMENT_LEDGER_H_
#define CARBONROUTE_KARMADA_PLACEMENT_LEDGER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "contract/emissions_type.h"
#include "ledger/ledger.h"
#include "ledger/pass_intervals.h"

namespace carbonroute::karmada {

// Cluster name → its share of the replicas (the shares sum to 1).
using ClusterShares = std::map<std::string, double>;

// `clusters` by `weights` (a cluster without one weighs 1), or in equal shares
// when `weights` is empty.
ClusterShares SharesOf(const std::vector<std::string>& clusters,
                       const std::map<std::string, int64_t>& weights);

// What a cluster is priced at in one pass.
struct ClusterReading {
  double grams_per_kwh = 0;  // the reading valid at the pass
  EmissionsType emissions_type = EmissionsType::kAverage;
  std::optional<absl::Duration> origin_rtt;  // from the policy's origin, when it has one
};

// One policy's pass.
struct PlacementPass {
  std::string policy_uid;
  std::string namespace_name;  // the workload's
  ClusterShares chosen;
  ClusterShares counterfactual;
  std::optional<double> watts;  // the workload's power; absent when it cannot be read
  std::map<std::string, ClusterReading> readings;  // the clusters with a usable reading
  bool moved = false;  // the pass wrote (or in shadow mode would write) a new placement
  // Why no interval of this policy can be booked ("" = it can): kDuplicated.
  std::string not_booked;
};

// A target whose replicas are Duplicated (every cluster runs them all): the two
// bases would not run the same energy, so no one figure prices both.
inline constexpr char kDuplicated[] = "duplicated";

class PlacementLedger {
 public:
  PlacementLedger(ledger::Ledger& ledger, ledger::LedgerMode mode, absl::Duration longest_interval);

  // Books the interval since the policy's previous pass (none at its first),
  // and the decision.
  void Book(const PlacementPass& pass, absl::Time now);
  // Whether a pass of this policy at `now` would price an interval: there was
  // a previous pass, no longer ago than the longest interval. The controller
  // reads the workload's energy (GETs of its templates) only then.
  bool WouldPrice(const std::string& policy_uid, absl::Time now) const;
  // A policy that no longer exists: its next pass, if it comes back, opens a new interval.
  void Forget(const std::string& policy_uid) { intervals_.Forget(policy_uid); }

 private:
  ledger::Ledger& ledger_;
  const ledger::LedgerMode mode_;
  ledger::PassIntervals intervals_;  // one chain per policy uid
};

}  // namespace carbonroute::karmada

#endif  // CARBONROUTE_KARMADA_PLACEMENT_LEDGER_H_
