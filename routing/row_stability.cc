#include "routing/row_stability.h"

#include <optional>

#include "routing/destination_rule_patch.h"

namespace carbonroute::routing {
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
      held_intensity = ExpectedIntensity(*kept, *flows);
      planned_intensity = ExpectedIntensity(planned, *flows);
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
