#include "simulator/simulated_forecast.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace carbonroute::simulator {

std::string SimulatedForecast::ToString() const {
  switch (kind) {
    case Kind::kPerfect:
      return "perfect";
    case Kind::kPersistence:
      return "persistence";
    case Kind::kNoisy:
      return absl::StrCat("noisy:", mape_percent);
  }
  return "?";
}

absl::StatusOr<SimulatedForecast> ParseSimulatedForecast(absl::string_view text) {
  SimulatedForecast forecast;
  if (text == "perfect") return forecast;
  if (text == "persistence") {
    forecast.kind = SimulatedForecast::Kind::kPersistence;
    return forecast;
  }
  double percent = 0;
  absl::string_view rest = text;
  if (absl::ConsumePrefix(&rest, "noisy:") && absl::SimpleAtod(rest, &percent) && percent >= 0 &&
      percent <= 100) {
    forecast.kind = SimulatedForecast::Kind::kNoisy;
    forecast.mape_percent = percent;
    return forecast;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("expected perfect, persistence or noisy:P with P a percentage in [0, 100], "
                   "got \"",
                   text, "\""));
}

std::vector<double> ForecastSeries(const std::vector<double>& hourly,
                                   const SimulatedForecast& forecast) {
  std::vector<double> out = hourly;
  switch (forecast.kind) {
    case SimulatedForecast::Kind::kPerfect:
      break;
    case SimulatedForecast::Kind::kPersistence:
      for (std::size_t h = 0; h < hourly.size(); ++h) out[h] = h >= 24 ? hourly[h - 24] : hourly[0];
      break;
    case SimulatedForecast::Kind::kNoisy: {
      // E|ε| = σ·√(2/π) for ε ~ Normal(0, σ): σ = MAPE·√(π/2).
      std::mt19937_64 random(forecast.seed);
      std::normal_distribution<double> error(0, forecast.mape_percent / 100 * std::sqrt(M_PI / 2));
      for (double& value : out) value *= 1 + std::max(-0.95, error(random));
      break;
    }
  }
  return out;
}

}  // namespace carbonroute::simulator
