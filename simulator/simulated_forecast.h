// File: simulator/simulated_forecast.h
//
// What the simulator's carbonroute policy is told of the hours to come
// (simulate --forecast), in both shifts:
// - `perfect`: the truth;
// - `persistence`: the same hour of the day before (ForecastSeries: the first
//   day sees the first reading; --shift space has no forecast in the first
//   day and scores on the current reading, simulator.h);
// - `noisy:P`: the truth × (1 + ε), ε drawn once per hour from Normal(0, σ)
//   with σ = P/100 · √(π/2), so that the mean absolute percentage error is
//   P % (E|ε| = σ·√(2/π) for a normal ε), clipped at −95 %; seeded, so the
//   same run gives the same numbers (each zone its own seed: `seed` + the
//   zone's trace column).
//
// Errors: ParseSimulatedForecast's kInvalidArgument names the text.
// Thread safety: pure functions.
#ifndef CARBONROUTE_SIMULATOR_SIMULATED_FORECAST_H_
#define CARBONROUTE_SIMULATOR_SIMULATED_FORECAST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace carbonroute::simulator {

struct SimulatedForecast {
  enum class Kind { kPerfect, kPersistence, kNoisy };
  Kind kind = Kind::kPerfect;
  double mape_percent = 0;  // kNoisy
  uint64_t seed = 1;        // kNoisy

  std::string ToString() const;  // "perfect", "persistence", "noisy:10"
};
// "perfect", "persistence" or "noisy:P" with 0 ≤ P ≤ 100.
absl::StatusOr<SimulatedForecast> ParseSimulatedForecast(absl::string_view text);

// The forecast of every hour of `hourly`, as the policy sees it.
std::vector<double> ForecastSeries(const std::vector<double>& hourly,
                                   const SimulatedForecast& forecast);

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_SIMULATED_FORECAST_H_
