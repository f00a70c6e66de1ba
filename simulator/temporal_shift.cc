#include "simulator/temporal_shift.h"

#include <algorithm>
#include <cstddef>
#include <deque>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "simulator/ranked_window.h"

namespace carbonroute::simulator {
absl::Status CheckTemporalJob(std::size_t hours, const TemporalJob& job) {
  if (job.length_hours < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("job length must be at least 1 hour, got ", job.length_hours));
  }
  if (job.slack_hours < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("slack must not be negative, got ", job.slack_hours, " hours"));
  }
  if (hours < static_cast<std::size_t>(job.length_hours)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a job of ", job.length_hours, " hours does not fit in a series of ", hours, " hours"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<double>> RunNowMeans(const std::vector<double>& hourly,
                                                const TemporalJob& job) {
  if (absl::Status status = CheckTemporalJob(hourly.size(), job); !status.ok()) return status;
  const std::size_t length = static_cast<std::size_t>(job.length_hours);
  const std::size_t arrivals = hourly.size() - length + 1;
  std::vector<double> prefix(hourly.size() + 1, 0);
  for (std::size_t h = 0; h < hourly.size(); ++h) prefix[h + 1] = prefix[h] + hourly[h];
  std::vector<double> means(arrivals);
  for (std::size_t t = 0; t < arrivals; ++t) {
    means[t] = (prefix[t + length] - prefix[t]) / static_cast<double>(length);
  }
  return means;
}

absl::StatusOr<std::vector<double>> OracleMeans(const std::vector<double>& hourly,
                                                const TemporalJob& job) {
  if (absl::Status status = CheckTemporalJob(hourly.size(), job); !status.ok()) return status;
  const std::size_t hours = hourly.size();
  const std::size_t length = static_cast<std::size_t>(job.length_hours);
  const std::size_t slack = static_cast<std::size_t>(job.slack_hours);
  const std::size_t arrivals = hours - length + 1;
  std::vector<double> means(arrivals);
  if (job.interruptible) {
    // The window [t, min(t + slack + length, hours)): both ends only move right.
    RankedWindow window(hourly);
    std::size_t end = 0;
    for (std::size_t t = 0; t < arrivals; ++t) {
      const std::size_t want = std::min(t + slack + length, hours);
      while (end < want) window.Insert(end++);
      if (t > 0) window.Remove(t - 1);
      means[t] = window.SmallestSum(length) / static_cast<double>(length);
    }
    return means;
  }
  // Block sums b[s] = Σ hourly[s, s + length); arrival t takes min b[s] for
  // s in [t, min(t + slack, arrivals − 1)]: a sliding minimum.
  std::vector<double> prefix(hours + 1, 0);
  for (std::size_t h = 0; h < hours; ++h) prefix[h + 1] = prefix[h] + hourly[h];
  auto block = [&](std::size_t s) { return prefix[s + length] - prefix[s]; };
  std::deque<std::size_t> candidates;  // starts in the window, block sums increasing
  std::size_t next = 0;                // the next start to enter
  for (std::size_t t = 0; t < arrivals; ++t) {
    const std::size_t last = std::min(t + slack, arrivals - 1);
    for (; next <= last; ++next) {
      while (!candidates.empty() && block(candidates.back()) >= block(next)) candidates.pop_back();
      candidates.push_back(next);
    }
    while (candidates.front() < t) candidates.pop_front();
    means[t] = block(candidates.front()) / static_cast<double>(length);
  }
  return means;
}

}  // namespace carbonroute::simulator
