#include "rebalance/policy_status.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "base/utc_time.h"

namespace carbonroute::rebalance {
namespace {

using JsonValue = nlohmann::json;

// Grams and intensities in the status to a milligram: enough to read, and stable between passes.
double Rounded(double value) { return std::round(value * 1000) / 1000; }

JsonValue Condition(const std::string& type, bool status, const std::string& reason,
                    const std::string& message, const TransitionTimes& since) {
  const std::string value = status ? "True" : "False";
  return {{"type", type},
          {"status", value},
          {"reason", reason},
          {"message", message},
          {"lastTransitionTime", UtcSeconds(since(type, value))}};
}

}  // namespace

std::string PolicyStatusBody(const RebalancePolicy& policy, const PolicyReport& report,
                             const TransitionTimes& since) {
  JsonValue candidates = JsonValue::array();
  for (const CandidateStatus& candidate : report.candidates) {
    candidates.push_back({{"pod", candidate.pod},
                          {"node", candidate.node},
                          {"location", candidate.location},
                          {"toNode", candidate.to_node},
                          {"toLocation", candidate.to_location},
                          {"gapGramsPerKwh", Rounded(candidate.gap)},
                          {"expectedSavingGrams", Rounded(candidate.saving_grams)},
                          {"moveCostGrams", Rounded(candidate.cost_grams)},
                          {"cleanerSince", UtcSeconds(candidate.cleaner_since)},
                          {"verdict", candidate.verdict},
                          {"reason", candidate.reason}});
  }
  JsonValue status = {{"observedGeneration", policy.generation},
                      {"candidates", std::move(candidates)},
                      {"moves", report.moves},
                      {"blockedMoves", report.blocked_moves}};
  if (report.last_move) {
    status["lastMove"] = {{"pod", report.last_move->pod},
                          {"from", report.last_move->from},
                          {"to", report.last_move->to},
                          {"at", UtcSeconds(report.last_move->at)}};
  }
  JsonValue conditions = JsonValue::array();
  if (!policy.invalid.empty()) {
    conditions.push_back(Condition("Ready", false, "Invalid", policy.invalid, since));
  } else if (report.data_missing) {
    conditions.push_back(
        Condition("Ready", false, "DataMissing", report.data_missing_message, since));
  } else {
    conditions.push_back(
        Condition("Ready", true, "Reconciled", "its Pods are weighed every resync", since));
  }
  conditions.push_back(Condition(
      "Moving", report.moving, report.moving ? "InFlight" : "Idle",
      report.moving ? "a move waits for its replacement to be bound" : "no move in flight", since));
  status["conditions"] = std::move(conditions);
  return JsonValue{{"status", std::move(status)}}.dump();
}

}  // namespace carbonroute::rebalance
