// File: carbon_aware/emissions_math.h
//
// The Carbon Aware SDK's arithmetic on emissions data, ported so that
// carbonroute's answers to its Web API are the SDK's own for the same data
// (Green-Software-Foundation/carbon-aware-sdk at e6de58da, src/CarbonAware/src/
// Extensions/EmissionsDataExtensions.cs, IntervalHelper.cs, Model/
// CarbonAwareParameters.cs `CarbonAwareOptimalEmission`, GSF.CarbonAware/src/
// Handlers/ForecastHandler.cs):
//   - AverageOverPeriod: the time-weighted mean rating over [start, end) of
//     continuous, chronological points; each point weighs the share of the
//     period it covers.
//   - RollingAverage: one point per window of `window` starting at data_start_at
//     (no earlier than the first point) and moving by the first point's
//     duration, each the AverageOverPeriod of its window, for the windows the
//     data covers, until a window would end after data_end_at.
//   - FilterByDuration: the points that end after `start` and begin no later than `end`.
//   - OptimalPoints: every point with the lowest rating, in order.
//
// Shapes and units: ratings in gCO2eq/kWh; times and durations absolute.
// Errors (the SDK's exceptions, which its API answers with 400):
//   kInvalidArgument "AverageOverPeriod requires continuous chronological
//   data..." for points with a gap or overlap, "Period out of range..." when
//   the points do not cover [start, end), "RollingAverage tickSize must be > 0"
//   for a first point of no duration.
// Thread safety: pure functions.
#ifndef CARBONROUTE_CARBON_AWARE_EMISSIONS_MATH_H_
#define CARBONROUTE_CARBON_AWARE_EMISSIONS_MATH_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace carbonroute::carbon_aware {

// The SDK's EmissionsData: a rating held over [time, time + duration).
struct EmissionsPoint {
  std::string location;
  absl::Time time;
  absl::Duration duration;
  double rating = 0;  // gCO2eq/kWh

  bool operator==(const EmissionsPoint&) const = default;
};

absl::StatusOr<double> AverageOverPeriod(const std::vector<EmissionsPoint>& points,
                                         absl::Time start, absl::Time end);

// `window` zero: the points as they are. `data_end_at` absent: no end.
absl::StatusOr<std::vector<EmissionsPoint>> RollingAverage(
    const std::vector<EmissionsPoint>& points, absl::Duration window, absl::Time data_start_at,
    std::optional<absl::Time> data_end_at);

std::vector<EmissionsPoint> FilterByDuration(const std::vector<EmissionsPoint>& points,
                                             absl::Time start, absl::Time end);

std::vector<EmissionsPoint> OptimalPoints(const std::vector<EmissionsPoint>& points);

}  // namespace carbonroute::carbon_aware

#endif  // CARBONROUTE_CARBON_AWARE_EMISSIONS_MATH_H_
