// File: placement/best_window.h
//
// The temporal query: when, between now and a deadline, should a job of a
// given duration start so that the grid's mean carbon intensity over its run
// is lowest? (The "best window" of the Carbon Aware SDK; for the savings of
// such shifting see Wiesner et al., "Let's Wait Awhile", Middleware 2021,
// doi:10.1145/3464298.3493399.)
//
// Candidate starts: now, and every forecast point boundary after now, such
// that start + duration ≤ deadline. For each, the time-weighted mean over
// [start, start + duration) (base/time_weighted_mean.h); starts whose run
// the forecast does not fully cover are skipped. Ties go to the earliest start.
// saving = (mean_now − mean_best) / mean_now.
//
// Errors: kInvalidArgument for a non-positive duration or a deadline before
// now + duration; kNotFound when the forecast covers no full run before the deadline.
// Thread safety: pure function.
#ifndef CARBONROUTE_PLACEMENT_BEST_WINDOW_H_
#define CARBONROUTE_PLACEMENT_BEST_WINDOW_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "contract/forecast_api.h"

namespace carbonroute::placement {

struct BestWindow {
  absl::Time start;
  double mean_grams_per_kwh = 0;
  std::optional<double>
      mean_if_started_now;                // absent if the forecast does not cover a run from now
  std::optional<double> saving_fraction;  // (now − best) / now
};

absl::StatusOr<BestWindow> FindBestWindow(const std::vector<ForecastPoint>& points, absl::Time now,
                                          absl::Duration duration, absl::Time deadline);

}  // namespace carbonroute::placement

#endif  // CARBONROUTE_PLACEMENT_BEST_WINDOW_H_
