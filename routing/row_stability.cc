#include "routing/row_stability.h"

#include <optional>

#include "routing/destination_rule_patch.h"

namespace carbonroute::routing {
namespace {

// The expected intensity of a request under `row`, if every destination it
// sends to is allowed and has a reading; nullopt otherwise (not valid).
std::optional<double> Expected(const DistributeRow& row, const RouteRow& planned) {
  double sum = 0;
  for (const auto& [locality, weight] : row.to) {
    if (weight == 0) continue;
    const RouteFlow* flow = nullptr;
    for (const RouteFlow& candidate : planned.flows) {
      if (candidate.destination == locality) flow = &candidate;
    }
    if (flow == nullptr || !flow->allowed || !flow->grams_per_kwh) return std::nullopt;
    sum += static_cast<double>(weight) / 100 * *flow->grams_per_kwh;
  }
  return sum;
}

}  // namespace

std::vector<DistributeRow> StableRows(const std::vector<DistributeRow>& held, const RoutePlan& plan,
                                      double tolerance, absl::Duration min_stay, absl::Time now,
                                      std::map<std::string, absl::Time>& changed) {
  std::vector<DistributeRow> rows;
  for (const DistributeRow& planned : plan.setting.distribute) {
    const DistributeRow* kept = nullptr;
    for (const DistributeRow& row : held) {
      if (row.from == planned.from) kept = &row;
    }
    const RouteRow* flows = nullptr;
    for (const RouteRow& row : plan.rows) {
      if (row.origin == planned.from) flows = &row;
    }
    std::optional<double> held_intensity, planned_intensity;
    if (kept != nullptr && flows != nullptr) {
      held_intensity = Expected(*kept, *flows);
      planned_intensity = Expected(planned, *flows);
    }
    const auto since = changed.find(planned.from);
    const bool young = since != changed.end() && now - since->second < min_stay;
    const bool small_gain =
        held_intensity && planned_intensity && *held_intensity - *planned_intensity <= tolerance;
    if (held_intensity && (young || small_gain)) {
      rows.push_back(*kept);
      continue;
    }
    if (kept == nullptr || !SameRows({*kept}, {planned})) changed[planned.from] = now;
    rows.push_back(planned);
  }
  return rows;
}

}  // namespace carbonroute::routing
