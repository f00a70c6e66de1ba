// File: collector/forecast_mean.h
//
// Time-weighted mean of forecast points over a window:
//
//   mean = Σ vᵢ·|[fromᵢ,toᵢ) ∩ [start,end)| / (end − start)
//
// defined only when the points cover the whole window without gaps: a
// partial forecast gives no mean rather than a biased one.
#ifndef CARBONROUTE_COLLECTOR_FORECAST_MEAN_H_
#define CARBONROUTE_COLLECTOR_FORECAST_MEAN_H_

#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "cache/intensity_record.h"

namespace carbonroute::collector {

// `points` sorted by valid_from and non-overlapping (as the cache returns
// them). nullopt if [start, end) is empty or not fully covered.
std::optional<double> TimeWeightedMean(const std::vector<cache::IntensityRecord>& points,
                                       absl::Time start, absl::Time end);

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_FORECAST_MEAN_H_
