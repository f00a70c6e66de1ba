#include "placement/move_payback.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "placement/scoring.h"

namespace carbonroute::placement {
namespace {

constexpr double kJoulesPerKwh = 3.6e6;

// The forecasts' gap over the window covering `span`, when both have that window.
std::optional<std::pair<double, std::string>> ForecastGap(const GridView& from, const GridView& to,
                                                          absl::Duration span) {
  const ForecastWindow* window = ForecastWindowFor(span);
  if (window == nullptr) return std::nullopt;
  const auto f = from.forecast_mean.find(window->label);
  const auto t = to.forecast_mean.find(window->label);
  if (f == from.forecast_mean.end() || t == to.forecast_mean.end()) return std::nullopt;
  return std::pair{f->second - t->second, absl::StrCat("forecast ", window->label)};
}

}  // namespace

std::string MovePrice::WhyNot(double tolerance) const {
  if (gap_now <= tolerance) {
    return absl::StrFormat("the gap, %.1f gCO2eq/kWh, is within the tolerance of %g", gap_now,
                           tolerance);
  }
  if (forecast_closes_gap) {
    return absl::StrFormat("the forecast closes the gap before the move pays back (%s)",
                           absl::FormatDuration(absl::Trunc(payback, absl::Seconds(1))));
  }
  if (saving_grams <= cost_grams) {
    return absl::StrFormat("the expected saving, %.3f g, does not exceed the restart's %.3f g",
                           saving_grams, cost_grams);
  }
  return "";
}

MovePrice PriceMove(const GridView& from, const GridView& to, const MoveTerms& terms) {
  MovePrice price;
  price.gap_now = from.grams_per_kwh - to.grams_per_kwh;
  price.expected_gap = price.gap_now;
  price.gap_basis = "current";
  if (std::optional<std::pair<double, std::string>> gap = ForecastGap(from, to, terms.horizon)) {
    price.expected_gap = gap->first;
    price.gap_basis = gap->second;
  }
  price.saving_grams =
      terms.watts * absl::ToDoubleSeconds(terms.horizon) / kJoulesPerKwh * price.expected_gap;
  price.cost_grams = terms.restart_joules / kJoulesPerKwh * to.grams_per_kwh;
  if (price.gap_now > 0 && terms.watts > 0) {
    price.payback =
        absl::Seconds(terms.restart_joules * to.grams_per_kwh / (terms.watts * price.gap_now));
    if (std::optional<std::pair<double, std::string>> gap =
            ForecastGap(from, to, std::max(price.payback, absl::Seconds(1)))) {
      price.forecast_closes_gap = gap->first <= 0;
    }
  }
  return price;
}

}  // namespace carbonroute::placement
