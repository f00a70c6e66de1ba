// File: simulator/temporal_shift.h
//
// Temporal shifting: what waiting would save, in the model of Sukprasert et
// al., "On the Limitations of Carbon-Aware Temporal and Spatial Workload
// Shifting in the Cloud", EuroSys 2024 (§3). A job of `length` hours arrives
// at hour t in a zone; with `slack` hours it may run
//   - interruptible: in any `length` hours of the window [t, t + slack + length),
//   - not interruptible: in any `length` consecutive hours of that window,
// the window cut at the end of the series (so a slack of a year is "the rest
// of the year"). Arrivals are every hour at which the job still fits in the
// series: t = 0 … H − length (H − length + 1 of them). A job's figure is the
// mean gCO2eq/kWh over the hours it runs, per job-hour.
//
// Policies here (exact, hindsight or none):
//   now     runs at arrival: the mean of [t, t + length);
//   oracle  the cleanest choice in hindsight, the exact lower bound of any
//           policy: the `length` smallest values of the window
//           (interruptible), or the smallest `length`-hour block sum.
// The oracle runs in O(H log H) per series whatever the slack, where the
// study sorts every window (O(H · W log W)): a Fenwick tree over the values'
// ranks holds the window as it slides (each hour enters and leaves once) and
// gives the sum of its k smallest by one descent (Fenwick, "A new data
// structure for cumulative frequency tables", Software: Practice and
// Experience 24(3), 1994); the block sums' minimum slides with a monotonic deque.
//
// Shapes: `hourly` is one zone's series, gCO2eq/kWh, one value per hour (no
// NaN). Results hold one value per arrival, in arrival order.
// Errors: kInvalidArgument when length < 1, slack < 0 or the series is
// shorter than the job (naming the value).
// Thread safety: pure functions.
#ifndef CARBONROUTE_SIMULATOR_TEMPORAL_SHIFT_H_
#define CARBONROUTE_SIMULATOR_TEMPORAL_SHIFT_H_

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace carbonroute::simulator {

struct TemporalJob {
  int length_hours = 1;
  int slack_hours = 0;
  bool interruptible = false;
};

// OK, or the kInvalidArgument above for `job` in a series of `hours` hours.
absl::Status CheckTemporalJob(std::size_t hours, const TemporalJob& job);

// Each arrival's mean gCO2eq/kWh when the job runs at once.
absl::StatusOr<std::vector<double>> RunNowMeans(const std::vector<double>& hourly,
                                                const TemporalJob& job);

// Each arrival's mean gCO2eq/kWh over the cleanest hours its window allows (see above).
absl::StatusOr<std::vector<double>> OracleMeans(const std::vector<double>& hourly,
                                                const TemporalJob& job);

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_TEMPORAL_SHIFT_H_
