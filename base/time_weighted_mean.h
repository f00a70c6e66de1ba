// File: base/time_weighted_mean.h
//
// Time-weighted mean of piecewise-constant values over a window:
//
//   mean = Σ vᵢ·|[fromᵢ,toᵢ) ∩ [start,end)| / (end − start)
//
// defined only when the points cover the whole window without gaps: a partial
// forecast gives no mean rather than a biased one. Shared by the collector's
// forecast-mean gauges and scheduler-lite's best-window query. Header-only:
// `Point` is any type with `valid_from`, `valid_to` (absl::Time) and `value`.
//
// REQUIRES: points sorted by valid_from and non-overlapping.
// Thread safety: pure function.
#ifndef CARBONROUTE_BASE_TIME_WEIGHTED_MEAN_H_
#define CARBONROUTE_BASE_TIME_WEIGHTED_MEAN_H_

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/time/time.h"

namespace carbonroute {

template <typename Point>
std::optional<double> TimeWeightedMean(const std::vector<Point>& points, absl::Time start,
                                       absl::Time end) {
  if (end <= start) return std::nullopt;
  absl::Time covered_until = start;
  double weighted_sum = 0;
  for (const Point& point : points) {
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

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_TIME_WEIGHTED_MEAN_H_
