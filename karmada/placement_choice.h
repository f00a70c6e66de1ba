// File: karmada/placement_choice.h
//
// Which member clusters a policy's target gets, decided from the scored
// clusters (placement/scoring.h: the same filters, carbon values and order
// as every other path; latency limits from spec.origin/maxRttMs) and what
// the target has now. Pure: the controller reads and writes, this decides.
//
// Rules (README "Karmada"; each difference from the carbon-aware-karmada-
// operator is listed there):
//   1. A cluster is eligible when it is feasible (within the latency limit)
//      and has a carbon reading that is not stale (`grams_per_kwh`).
//   2. Not enough data: when fewer than desiredClusters are eligible and at
//      least one cluster has no reading, the current clusterNames stay
//      (an empty list means "every cluster" to Karmada: missing data never
//      widens the placement); `data_missing` says which clusters lack data.
//      When no cluster is eligible at all, the current clusterNames stay too.
//   3. Stickiness: a cluster the target has now stays chosen while
//        now < activeSince + minStay, or
//        its intensity ≤ the cleanest eligible cluster not chosen + tolerance;
//      the remaining places go to the eligible clusters in scoring order
//      (cleanest first, ties by name). With tolerance 0 and minStay 0 an
//      equally clean alternative does not move the placement.
//   4. `changed` only when the chosen set differs from the target's (as
//      sets: order alone never causes a write).
//   5. Weights (spec.replicaWeights on a Divided target): each chosen
//      cluster's weight is round(100 × c_min / c), c its intensity in
//      gCO2eq/kWh and c_min the cleanest chosen one's (so the cleanest gets
//      100, a cluster twice as dirty 50), at least 1 (the API's minimum);
//      an intensity below 1 gCO2eq/kWh counts as 1.
//
// Thread safety: pure function.
#ifndef CARBONROUTE_KARMADA_PLACEMENT_CHOICE_H_
#define CARBONROUTE_KARMADA_PLACEMENT_CHOICE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "karmada/carbon_policy.h"
#include "placement/scoring.h"

namespace carbonroute::karmada {

// One cluster's line in the policy's status.
struct ClusterDecision {
  std::string name, location;
  bool valid = false;                    // eligible (rule 1)
  std::optional<double> grams_per_kwh;   // gCO2eq/kWh
  std::optional<absl::Time> valid_to;    // the reading's validity
  std::optional<absl::Time> fetched_at;  // when the collector fetched the reading
  std::optional<double> rtt_ms;          // from the origin, when a limit applies
  bool active = false;
  std::optional<absl::Time> active_since;
  std::optional<int64_t> weight;
  std::string reason;  // why it is (not) chosen, for people
};

struct PlacementChoice {
  std::vector<std::string> active;        // the chosen clusters, cleanest first
  std::vector<ClusterDecision> clusters;  // in the order scoring ranked them
  bool changed = false;                   // active differs from the target's clusterNames
  bool kept_for_missing_data = false;     // rule 2: the current clusterNames stay
  std::vector<std::string> missing_data;  // clusters without a usable reading
  std::string message;                    // one line: what was decided and why (a move's Event)
  std::string state;  // the same as a state, unchanged while the placement is (Ready's message)
  std::map<std::string, int64_t> weights;  // rule 5; empty when not asked for
};

struct ChoiceInput {
  const CarbonPolicy* policy = nullptr;
  // ScoreCandidates' answer for the policy's clusters, in its order.
  const std::vector<placement::ScoredCandidate>* scored = nullptr;
  // Each scored cluster's reading's validity and fetch time, by cluster name.
  std::map<std::string, std::pair<std::optional<absl::Time>, std::optional<absl::Time>>> readings;
  std::vector<std::string> current;  // the target's clusterNames now
  bool divided = false;              // the target divides replicas
  absl::Time now;
};

PlacementChoice ChoosePlacement(const ChoiceInput& input);

}  // namespace carbonroute::karmada

#endif  // CARBONROUTE_KARMADA_PLACEMENT_CHOICE_H_
