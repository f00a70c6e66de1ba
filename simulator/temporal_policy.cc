#include "simulator/temporal_policy.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "simulator/ranked_window.h"

namespace carbonroute::simulator {
namespace {

constexpr std::size_t kWeek = 168;  // hours of history the threshold looks at

std::vector<double> PrefixSums(const std::vector<double>& values) {
  std::vector<double> prefix(values.size() + 1, 0);
  for (std::size_t i = 0; i < values.size(); ++i) prefix[i + 1] = prefix[i] + values[i];
  return prefix;
}

// The mean of the readings of the week before hour t (the reading at t itself for t = 0).
double WeekMean(const std::vector<double>& prefix, const std::vector<double>& hourly,
                std::size_t t) {
  const std::size_t from = t >= kWeek ? t - kWeek : 0;
  return t > from ? (prefix[t] - prefix[from]) / static_cast<double>(t - from) : hourly[t];
}

}  // namespace

absl::StatusOr<CarbonrouteWaiting> CarbonrouteWaiting::Create(const std::vector<double>& hourly,
                                                              const std::vector<double>& forecast,
                                                              int length_hours, int horizon_hours) {
  if (absl::Status status = CheckTemporalJob(hourly.size(), {length_hours, 0, false});
      !status.ok()) {
    return status;
  }
  if (horizon_hours < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the forecast horizon must be at least 1 hour, got ", horizon_hours));
  }
  if (forecast.size() != hourly.size()) {
    return absl::InvalidArgumentError("the forecast must cover every hour of the series");
  }
  return CarbonrouteWaiting(hourly, forecast, static_cast<std::size_t>(length_hours),
                            static_cast<std::size_t>(horizon_hours));
}

CarbonrouteWaiting::CarbonrouteWaiting(const std::vector<double>& hourly,
                                       const std::vector<double>& forecast, std::size_t length,
                                       std::size_t horizon)
    : hourly_(hourly),
      forecast_(forecast),
      hours_(hourly.size()),
      length_(length),
      horizon_(horizon),
      prefix_hourly_(PrefixSums(hourly)),
      prefix_forecast_(PrefixSums(forecast)),
      week_mean_(hours_),
      week_size_(hours_),
      block_below_(hours_ - length + 1),
      best_in_view_(hours_ - length + 1),
      hour_below_(hours_),
      cheap_in_view_(hours_) {
  const std::size_t last_start = hours_ - length_;
  RankedWindow past(hourly_);  // the week before each hour
  for (std::size_t t = 0; t < hours_; ++t) {
    if (t >= 1) past.Insert(t - 1);
    if (t > kWeek) past.Remove(t - 1 - kWeek);
    week_mean_[t] = WeekMean(prefix_hourly_, hourly_, t);
    week_size_[t] = past.size();
    hour_below_[t] = past.CountBelow(hourly_[t]);
    if (t <= last_start) block_below_[t] = past.CountBelow(BlockEstimate(t, t));
  }
  for (std::size_t t = 0; t <= last_start; ++t) {
    best_in_view_[t] = BestStart(t, std::min(t + horizon_ - 1, last_start)) == t;
  }
  for (std::size_t t = 0; t < hours_; ++t) {
    const std::size_t end = std::min(t + horizon_, hours_);
    std::size_t below = 0;
    for (std::size_t u = t + 1; u < end; ++u) below += forecast_[u] < hourly_[t] ? 1 : 0;
    cheap_in_view_[t] = below < length_;
  }
}

double CarbonrouteWaiting::BlockEstimate(std::size_t tau, std::size_t s) const {
  const std::size_t end = std::min({s + length_, tau + horizon_, hours_});
  double sum = prefix_forecast_[end] - prefix_forecast_[s];
  if (s == tau) sum += hourly_[tau] - forecast_[tau];
  sum += static_cast<double>(s + length_ - end) * week_mean_[tau];
  return sum / static_cast<double>(length_);
}

std::size_t CarbonrouteWaiting::BestStart(std::size_t tau, std::size_t last) const {
  std::size_t pick = tau;
  double pick_mean = BlockEstimate(tau, tau);
  for (std::size_t s = tau + 1; s <= last; ++s) {
    const double mean = BlockEstimate(tau, s);
    if (mean < pick_mean) {
      pick = s;
      pick_mean = mean;
    }
  }
  return pick;
}

absl::StatusOr<std::vector<double>> CarbonrouteWaiting::Means(int slack_hours,
                                                              bool interruptible) const {
  if (absl::Status status =
          CheckTemporalJob(hours_, {static_cast<int>(length_), slack_hours, interruptible});
      !status.ok()) {
    return status;
  }
  const std::size_t slack = static_cast<std::size_t>(slack_hours);
  const double q =
      std::min(0.5, static_cast<double>(length_ + 24) / static_cast<double>(slack + length_));
  return interruptible ? Interruptible(slack, q) : NotInterruptible(slack, q);
}

std::vector<double> CarbonrouteWaiting::NotInterruptible(std::size_t slack, double q) const {
  const std::size_t last_start = hours_ - length_;
  // next[τ]: the first start ≥ τ that is good and the best within the forecast.
  std::vector<std::size_t> next(last_start + 2, hours_);
  for (std::size_t t = last_start + 1; t-- > 0;) {
    const bool ok = Good(block_below_[t], week_size_[t], q) && best_in_view_[t];
    next[t] = ok ? t : next[t + 1];
  }
  std::vector<double> means(last_start + 1);
  for (std::size_t t = 0; t <= last_start; ++t) {
    const std::size_t deadline = std::min(t + slack, last_start);  // the last start
    std::size_t start = hours_;
    // Far: the deadline beyond the forecast (τ ≤ deadline − horizon): the first ok hour.
    if (deadline >= horizon_ && next[t] <= deadline - horizon_) start = next[t];
    if (start == hours_) {  // else plan once the deadline is within the forecast
      start = BestStart(deadline >= horizon_ ? std::max(t, deadline - horizon_ + 1) : t, deadline);
    }
    means[t] =
        (prefix_hourly_[start + length_] - prefix_hourly_[start]) / static_cast<double>(length_);
  }
  return means;
}

std::vector<double> CarbonrouteWaiting::Interruptible(std::size_t slack, double q) const {
  // Far from the window's end: hours that are good and among the job length's
  // cheapest of the forecast, in order.
  std::vector<std::size_t> good_hours;
  std::vector<std::size_t> good_before(hours_ + 1, 0);
  for (std::size_t h = 0; h < hours_; ++h) {
    const bool ok = Good(hour_below_[h], week_size_[h], q) && cheap_in_view_[h];
    good_before[h + 1] = good_before[h] + (ok ? 1 : 0);
    if (ok) good_hours.push_back(h);
  }
  const std::size_t arrivals = hours_ - length_ + 1;
  std::vector<double> means(arrivals);
  std::vector<std::pair<double, std::size_t>> in_view;
  const std::size_t near = std::max(horizon_, length_);  // hours planned at the end
  for (std::size_t t = 0; t < arrivals; ++t) {
    const std::size_t end = std::min(t + slack + length_, hours_);  // the window's end
    const std::size_t from = end >= near ? std::max(t, end - near) : t;
    const std::size_t taken = std::min(length_, good_before[from] - good_before[t]);
    double sum = 0;
    for (std::size_t i = 0; i < taken; ++i) sum += hourly_[good_hours[good_before[t] + i]];
    std::size_t remaining = length_ - taken;
    if (remaining > 0) {
      // The plan at `from`: the current hour at its reading, the forecast's hours
      // at their forecast; hours beyond the forecast are unknown, valued at the
      // past week's mean, and taken earliest first.
      const double week_mean = week_mean_[from];
      const std::size_t view_end = std::min(from + horizon_, end);
      in_view.clear();
      for (std::size_t u = from; u < view_end; ++u) {
        in_view.emplace_back(u == from ? hourly_[u] : forecast_[u], u);
      }
      std::sort(in_view.begin(), in_view.end());
      // Take visible hours cheaper than the unknown ones first, then unknown ones
      // earliest first, then the remaining visible ones (the plan must finish).
      std::size_t next_visible = 0, next_beyond = view_end;
      while (remaining > 0) {
        const bool visible_left = next_visible < in_view.size();
        const bool beyond_left = next_beyond < end;
        if (visible_left && (!beyond_left || in_view[next_visible].first <= week_mean)) {
          sum += hourly_[in_view[next_visible++].second];
        } else {
          sum += hourly_[next_beyond++];
        }
        --remaining;
      }
    }
    means[t] = sum / static_cast<double>(length_);
  }
  return means;
}

}  // namespace carbonroute::simulator
