// File: simulator/temporal_policy.h
//
// carbonroute's policy for waiting (simulate --shift time): each hour it
// decides with only what collectors export at that hour — the current
// reading, a forecast of the next `horizon` hours (providers publish 24 h to
// 72 h) and the readings of the past week — never the future beyond the
// forecast. The job model is simulator/temporal_shift.h's.
//
// Forecasts: simulator/simulated_forecast.h (ForecastSeries).
//
// The rule. Far from the deadline (the last start, or the last hour, beyond
// the forecast) a job waits for a good hour: one whose value (the current
// reading; for a block, the mean of its visible hours) is below all but a
// share q of the past week's readings, q = min(1/2, (J + 24) / (S + J)) for
// a job of J hours with S hours of slack (the fewer of the window's hours the
// job needs, the pickier it is). A block's value is its estimated mean: the
// current hour at its reading, the forecast's hours at their forecast, hours
// beyond the forecast at the past week's mean. Not interruptible: it starts at the first
// hour that is good and also the best start within the forecast. Interruptible:
// it runs in good hours. Once the deadline is within the forecast, it plans
// the rest on the forecast — the best start up to the last one, or the
// cheapest of the remaining hours (the current one at its reading) — and
// keeps to the plan. With no past week (the trace's first hours) every hour is good.
//
// Errors: kInvalidArgument for a bad job (temporal_shift.h), a horizon below
// 1 hour, or a forecast text other than perfect, persistence, noisy:P (0 ≤ P ≤ 100).
// Thread safety: pure functions.
#ifndef CARBONROUTE_SIMULATOR_TEMPORAL_POLICY_H_
#define CARBONROUTE_SIMULATOR_TEMPORAL_POLICY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "simulator/simulated_forecast.h"
#include "simulator/temporal_shift.h"

namespace carbonroute::simulator {

// The rule above for one series and one job length. What does not depend on
// the slack — each hour's estimate, its place in its past week, whether it is
// the best start the forecast shows — is worked out once in Create, so every
// slack and both modes reuse it (O(H · horizon) once, then about O(H) per slack).
// Ownership: borrows `hourly` and `forecast`, which must outlive it.
class CarbonrouteWaiting {
 public:
  // `forecast`: ForecastSeries' for `hourly`. kInvalidArgument for a length
  // that does not fit (temporal_shift.h), a horizon below 1 hour, or a
  // forecast of another length.
  static absl::StatusOr<CarbonrouteWaiting> Create(const std::vector<double>& hourly,
                                                   const std::vector<double>& forecast,
                                                   int length_hours, int horizon_hours);

  // Each arrival's mean gCO2eq/kWh; kInvalidArgument for a negative slack.
  absl::StatusOr<std::vector<double>> Means(int slack_hours, bool interruptible) const;

 private:
  CarbonrouteWaiting(const std::vector<double>& hourly, const std::vector<double>& forecast,
                     std::size_t length, std::size_t horizon);
  // The estimated mean of the block starting at s, as seen at τ (see above).
  double BlockEstimate(std::size_t tau, std::size_t s) const;
  // The best start in [τ, last] as seen at τ (the earliest of equals).
  std::size_t BestStart(std::size_t tau, std::size_t last) const;
  // Whether an hour whose past week has `below` of `size` readings under its value is good.
  static bool Good(std::size_t below, std::size_t size, double q) {
    return size == 0 || static_cast<double>(below) <= q * static_cast<double>(size);
  }
  std::vector<double> NotInterruptible(std::size_t slack, double q) const;
  std::vector<double> Interruptible(std::size_t slack, double q) const;

  const std::vector<double>& hourly_;
  const std::vector<double>& forecast_;
  const std::size_t hours_, length_, horizon_;
  std::vector<double> prefix_hourly_, prefix_forecast_;
  std::vector<double> week_mean_;       // per hour: the mean of the week before it
  std::vector<std::size_t> week_size_;  // per hour: readings in the week before it
  // Per start (not interruptible): past-week readings below its block estimate,
  // and whether it is the best start within the forecast.
  std::vector<std::size_t> block_below_;
  std::vector<bool> best_in_view_;
  // Per hour (interruptible): past-week readings below its reading, and whether
  // it is among the job length's cheapest of the forecast.
  std::vector<std::size_t> hour_below_;
  std::vector<bool> cheap_in_view_;
};

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_TEMPORAL_POLICY_H_
