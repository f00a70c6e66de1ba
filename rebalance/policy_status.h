// File: rebalance/policy_status.h
//
// A CarbonRebalancePolicy's status, as the controller writes it through the
// status subresource (controller_runtime/status_writer.h; the CRD's schema):
//   observedGeneration;
//   candidates[]   each of its Pods a cleaner Node beats by more than the
//                  tolerance: pod, node, location, to (Node and location),
//                  gapGramsPerKwh (now), expectedSavingGrams (over the
//                  horizon), moveCostGrams (the restart), cleanerSince, and
//                  verdict (move, waiting, not_worth_it, in_flight,
//                  period_limit, blocked_by_pdb, throttled,
//                  not_placed_by_carbonroute, would_evict, evicted) with its reason;
//   moves, blockedMoves   evictions made and refused by a
//                  PodDisruptionBudget since this replica started;
//   lastMove       {pod, from, to, at} of the last eviction;
//   conditions     Ready (False with reason Invalid naming the field, or
//                  DataMissing when no reading prices its Nodes) and Moving
//                  (True while one of its workloads has a move in flight).
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_REBALANCE_POLICY_STATUS_H_
#define CARBONROUTE_REBALANCE_POLICY_STATUS_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "rebalance/rebalance_policy.h"

namespace carbonroute::rebalance {

struct CandidateStatus {
  std::string pod, node, location, to_node, to_location;
  double gap = 0, saving_grams = 0, cost_grams = 0;
  absl::Time cleaner_since;
  std::string verdict, reason;
};

struct LastMove {
  std::string pod, from, to;
  absl::Time at;
};

struct PolicyReport {
  std::vector<CandidateStatus> candidates;
  int64_t moves = 0, blocked_moves = 0;
  std::optional<LastMove> last_move;
  bool data_missing = false;
  std::string data_missing_message;
  bool moving = false;
};

// When the condition (type, status) began: StatusWriter::TransitionTime.
using TransitionTimes = std::function<absl::Time(const std::string&, const std::string&)>;

// The merge patch {"status": {...}}.
std::string PolicyStatusBody(const RebalancePolicy& policy, const PolicyReport& report,
                             const TransitionTimes& since);

}  // namespace carbonroute::rebalance

#endif  // CARBONROUTE_REBALANCE_POLICY_STATUS_H_
