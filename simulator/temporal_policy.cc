#include "simulator/temporal_policy.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "simulator/ranked_window.h"

namespace carbonroute::simulator {
namespace {

constexpr std::size_t kWeek = 168;  // hours of history the threshold looks at

std::vector<double> PrefixSums(const std::vector<double>& values) {
  std::vector<double> prefix(values.size() + 1, 0);
  for (std::size_t i = 0; i < values.size(); ++i) prefix[i + 1] = prefix[i] + values[i];
  return prefix;
}

// good[τ]: whether `value(τ)` is below all but a share q of the past week's readings.
template <typename Value>
std::vector<bool> GoodHours(const std::vector<double>& hourly, std::size_t last, double q,
                            Value value) {
  RankedWindow past(hourly);
  std::vector<bool> good(last + 1);
  for (std::size_t t = 0; t <= last; ++t) {
    if (t >= 1) past.Insert(t - 1);
    if (t > kWeek) past.Remove(t - 1 - kWeek);
    good[t] = past.size() == 0 || static_cast<double>(past.CountBelow(value(t))) <=
                                      q * static_cast<double>(past.size());
  }
  return good;
}

// The mean of the readings of the week before hour t (the reading at t itself for t = 0).
double WeekMean(const std::vector<double>& prefix, const std::vector<double>& hourly,
                std::size_t t) {
  const std::size_t from = t >= kWeek ? t - kWeek : 0;
  return t > from ? (prefix[t] - prefix[from]) / static_cast<double>(t - from) : hourly[t];
}

}  // namespace

std::string TemporalForecast::ToString() const {
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

absl::StatusOr<TemporalForecast> ParseTemporalForecast(absl::string_view text) {
  TemporalForecast forecast;
  if (text == "perfect") return forecast;
  if (text == "persistence") {
    forecast.kind = TemporalForecast::Kind::kPersistence;
    return forecast;
  }
  double percent = 0;
  absl::string_view rest = text;
  if (absl::ConsumePrefix(&rest, "noisy:") && absl::SimpleAtod(rest, &percent) && percent >= 0 &&
      percent <= 100) {
    forecast.kind = TemporalForecast::Kind::kNoisy;
    forecast.mape_percent = percent;
    return forecast;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("expected perfect, persistence or noisy:P with P a percentage in [0, 100], "
                   "got \"",
                   text, "\""));
}

std::vector<double> ForecastSeries(const std::vector<double>& hourly,
                                   const TemporalForecast& forecast) {
  std::vector<double> out = hourly;
  switch (forecast.kind) {
    case TemporalForecast::Kind::kPerfect:
      break;
    case TemporalForecast::Kind::kPersistence:
      for (std::size_t h = 0; h < hourly.size(); ++h) out[h] = h >= 24 ? hourly[h - 24] : hourly[0];
      break;
    case TemporalForecast::Kind::kNoisy: {
      // E|ε| = σ·√(2/π) for ε ~ Normal(0, σ): σ = MAPE·√(π/2).
      std::mt19937_64 random(forecast.seed);
      std::normal_distribution<double> error(0, forecast.mape_percent / 100 * std::sqrt(M_PI / 2));
      for (double& value : out) value *= 1 + std::max(-0.95, error(random));
      break;
    }
  }
  return out;
}

absl::StatusOr<std::vector<double>> CarbonrouteMeans(const std::vector<double>& hourly,
                                                     const std::vector<double>& forecast,
                                                     const TemporalJob& job, int horizon_hours) {
  absl::StatusOr<std::vector<double>> now = RunNowMeans(hourly, job);  // checks the job
  if (!now.ok()) return now.status();
  if (horizon_hours < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the forecast horizon must be at least 1 hour, got ", horizon_hours));
  }
  if (forecast.size() != hourly.size()) {
    return absl::InvalidArgumentError("the forecast must cover every hour of the series");
  }
  const std::size_t hours = hourly.size();
  const std::size_t length = static_cast<std::size_t>(job.length_hours);
  const std::size_t slack = static_cast<std::size_t>(job.slack_hours);
  const std::size_t horizon = static_cast<std::size_t>(horizon_hours);
  const std::size_t arrivals = hours - length + 1;
  const double q =
      std::min(0.5, static_cast<double>(length + 24) / static_cast<double>(slack + length));
  const std::vector<double> px = PrefixSums(hourly), pf = PrefixSums(forecast);
  std::vector<double> means(arrivals);

  if (!job.interruptible) {
    const std::size_t last_start = hours - length;
    // The mean of block s's hours visible at τ (the current one at its reading).
    // The estimated mean of block s seen at τ: the current hour at its reading,
    // the forecast's hours at their forecast, hours beyond it at the past week's mean.
    auto visible = [&](std::size_t tau, std::size_t s) {
      const std::size_t end = std::min({s + length, tau + horizon, hours});
      double sum = pf[end] - pf[s];
      if (s == tau) sum += hourly[tau] - forecast[tau];
      sum += static_cast<double>(s + length - end) * WeekMean(px, hourly, tau);
      return sum / static_cast<double>(length);
    };
    // The best start in [τ, last] as seen at τ (the earliest of equals).
    auto best = [&](std::size_t tau, std::size_t last) {
      std::size_t pick = tau;
      double pick_mean = visible(tau, tau);
      for (std::size_t s = tau + 1; s <= last; ++s) {
        const double mean = visible(tau, s);
        if (mean < pick_mean) {
          pick = s;
          pick_mean = mean;
        }
      }
      return pick;
    };
    const std::vector<bool> good =
        GoodHours(hourly, last_start, q, [&](std::size_t t) { return visible(t, t); });
    // next[τ]: the first hour ≥ τ that is good and the best start within the forecast.
    std::vector<std::size_t> next(last_start + 2, hours);
    for (std::size_t t = last_start + 1; t-- > 0;) {
      const bool ok = good[t] && best(t, std::min(t + horizon - 1, last_start)) == t;
      next[t] = ok ? t : next[t + 1];
    }
    for (std::size_t t = 0; t < arrivals; ++t) {
      const std::size_t deadline = std::min(t + slack, last_start);  // the last start
      std::size_t start = hours;
      // Far: the deadline beyond the forecast (τ ≤ deadline − horizon): the first ok hour.
      if (deadline >= horizon && next[t] <= deadline - horizon) start = next[t];
      if (start == hours) {  // else plan once the deadline is within the forecast
        start = best(deadline >= horizon ? std::max(t, deadline - horizon + 1) : t, deadline);
      }
      means[t] = (px[start + length] - px[start]) / static_cast<double>(length);
    }
    return means;
  }

  // Interruptible: far from the window's end, hours that are good and among the
  // job's length cheapest of the forecast; then a plan.
  std::vector<double> visible_sorted;
  auto cheap_in_view = [&](std::size_t t) {
    // Whether hourly[t] is among the min(length, visible) smallest of [t, t + horizon).
    const std::size_t end = std::min(t + horizon, hours);
    std::size_t below = 0;
    for (std::size_t u = t + 1; u < end; ++u) below += forecast[u] < hourly[t] ? 1 : 0;
    return below < length;
  };
  const std::vector<bool> good =
      GoodHours(hourly, hours - 1, q, [&](std::size_t t) { return hourly[t]; });
  std::vector<std::size_t> good_hours;  // in order
  std::vector<std::size_t> good_before(hours + 1, 0);
  for (std::size_t h = 0; h < hours; ++h) {
    const bool ok = good[h] && cheap_in_view(h);
    good_before[h + 1] = good_before[h] + (ok ? 1 : 0);
    if (ok) good_hours.push_back(h);
  }
  std::vector<std::pair<double, std::size_t>> in_view;
  const std::size_t near = std::max(horizon, length);  // hours planned at the end
  for (std::size_t t = 0; t < arrivals; ++t) {
    const std::size_t end = std::min(t + slack + length, hours);  // the window's end
    const std::size_t from = end >= near ? std::max(t, end - near) : t;
    const std::size_t taken = std::min(length, good_before[from] - good_before[t]);
    double sum = 0;
    for (std::size_t i = 0; i < taken; ++i) sum += hourly[good_hours[good_before[t] + i]];
    std::size_t remaining = length - taken;
    if (remaining > 0) {
      // The plan at `from`: the current hour at its reading, the forecast's hours
      // at their forecast; hours beyond the forecast are unknown, valued at the
      // past week's mean, and taken earliest first.
      const double week_mean = WeekMean(px, hourly, from);
      const std::size_t view_end = std::min(from + horizon, end);
      in_view.clear();
      for (std::size_t u = from; u < view_end; ++u) {
        in_view.emplace_back(u == from ? hourly[u] : forecast[u], u);
      }
      std::sort(in_view.begin(), in_view.end());
      const std::size_t beyond = end - view_end;  // hours past the forecast
      // Take visible hours cheaper than the unknown ones first, then unknown ones
      // earliest first, then the remaining visible ones (the plan must finish).
      std::size_t next_visible = 0, next_beyond = view_end;
      while (remaining > 0) {
        const bool visible_left = next_visible < in_view.size();
        const bool beyond_left = next_beyond < view_end + beyond;
        if (visible_left && (!beyond_left || in_view[next_visible].first <= week_mean)) {
          sum += hourly[in_view[next_visible++].second];
        } else {
          sum += hourly[next_beyond++];
        }
        --remaining;
      }
    }
    means[t] = sum / static_cast<double>(length);
  }
  return means;
}

}  // namespace carbonroute::simulator
