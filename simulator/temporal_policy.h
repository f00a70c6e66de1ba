// File: simulator/temporal_policy.h
//
// carbonroute's policy for waiting (simulate --shift time): each hour it
// decides with only what collectors export at that hour — the current
// reading, a forecast of the next `horizon` hours (providers publish 24 h to
// 72 h) and the readings of the past week — never the future beyond the
// forecast. The job model is simulator/temporal_shift.h's.
//
// Forecasts (TemporalForecast): `perfect` the truth; `persistence` the same
// hour of the day before (the first day: the first reading); `noisy:P` the
// truth × (1 + ε), ε drawn once per hour from Normal(0, σ) with
// σ = P/100 · √(π/2), so that the mean absolute percentage error is P %,
// clipped at −95 % (seeded: the same run gives the same numbers).
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

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "simulator/temporal_shift.h"

namespace carbonroute::simulator {

struct TemporalForecast {
  enum class Kind { kPerfect, kPersistence, kNoisy };
  Kind kind = Kind::kPerfect;
  double mape_percent = 0;  // kNoisy
  uint64_t seed = 1;        // kNoisy

  std::string ToString() const;  // "perfect", "persistence", "noisy:10"
};
absl::StatusOr<TemporalForecast> ParseTemporalForecast(absl::string_view text);

// The forecast of every hour of `hourly`, as the policy sees it.
std::vector<double> ForecastSeries(const std::vector<double>& hourly,
                                   const TemporalForecast& forecast);

// Each arrival's mean gCO2eq/kWh under the rule above (`forecast`: ForecastSeries').
absl::StatusOr<std::vector<double>> CarbonrouteMeans(const std::vector<double>& hourly,
                                                     const std::vector<double>& forecast,
                                                     const TemporalJob& job, int horizon_hours);

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_TEMPORAL_POLICY_H_
