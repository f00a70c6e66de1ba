#include "collector/forecast_mean.h"

#include <algorithm>

namespace carbonroute::collector {

std::optional<double> TimeWeightedMean(const std::vector<cache::IntensityRecord>& points,
                                       absl::Time start, absl::Time end) {
  if (end <= start) return std::nullopt;
  absl::Time covered_until = start;
  double weighted_sum = 0;
  for (const cache::IntensityRecord& point : points) {
    if (point.valid_to <= covered_until) continue;
    if (point.valid_from > covered_until) return std::nullopt;  // a gap
    const absl::Time overlap_end = std::min(point.valid_to, end);
    weighted_sum += point.value * absl::ToDoubleSeconds(overlap_end - covered_until);
    covered_until = overlap_end;
    if (covered_until >= end) break;
  }
  if (covered_until < end) return std::nullopt;
  return weighted_sum / absl::ToDoubleSeconds(end - start);
}

}  // namespace carbonroute::collector
