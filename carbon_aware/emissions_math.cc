#include "carbon_aware/emissions_math.h"

#include <algorithm>
#include <deque>

#include "absl/strings/str_cat.h"

namespace carbonroute::carbon_aware {
namespace {

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime(absl::RFC3339_full, t, absl::UTCTimeZone());
}

absl::Time End(const EmissionsPoint& point) { return point.time + point.duration; }

}  // namespace

absl::StatusOr<double> AverageOverPeriod(const std::vector<EmissionsPoint>& points,
                                         absl::Time start, absl::Time end) {
  if (points.empty()) return 0.0;
  const bool reverse = points.size() >= 2 && points[0].time > points[1].time;
  const double total = absl::ToDoubleSeconds(end - start);
  double rating = 0;
  bool start_covered = false;
  bool end_covered = false;
  const EmissionsPoint* previous = nullptr;
  for (const EmissionsPoint& current : points) {
    if (previous != nullptr) {
      const bool continuous =
          reverse ? previous->time == End(current) : current.time == End(*previous);
      if (!continuous) {
        return absl::InvalidArgumentError(absl::StrCat(
            "AverageOverPeriod requires continuous chronological data. Previous point covered ",
            Rfc3339(previous->time), " through ", Rfc3339(End(*previous)),
            "; Current point covers ", Rfc3339(current.time), " through ", Rfc3339(End(current)),
            "."));
      }
    }
    if (End(current) > start && current.time < end) {
      const absl::Time lower = std::max(start, current.time);
      const absl::Time upper = std::min(end, End(current));
      rating += current.rating * absl::ToDoubleSeconds(upper - lower) / total;
    }
    start_covered = start_covered || (start >= current.time && start < End(current));
    end_covered = end_covered || (end <= End(current) && end > current.time);
    previous = &current;
  }
  if (!start_covered || !end_covered) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Period out of range. Data points did not cover the requested average period: ",
        Rfc3339(start), " through ", Rfc3339(end)));
  }
  return rating;
}

absl::StatusOr<std::vector<EmissionsPoint>> RollingAverage(
    const std::vector<EmissionsPoint>& points, absl::Duration window, absl::Time data_start_at,
    std::optional<absl::Time> data_end_at) {
  std::vector<EmissionsPoint> averages;
  if (points.empty()) return averages;
  if (window == absl::ZeroDuration()) return points;
  const absl::Duration tick = points.front().duration;
  if (tick <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("RollingAverage tickSize must be > 0");
  }
  const absl::Time end_bound = data_end_at.value_or(absl::InfiniteFuture());
  absl::Time window_start = std::max(data_start_at, points.front().time);
  absl::Time window_end = window_start + window;
  std::deque<EmissionsPoint> queue;
  std::size_t next = 0;
  const EmissionsPoint* last = nullptr;
  while (next < points.size()) {
    while (next < points.size() && window_end > points[next].time) {
      if (window_start <= End(points[next])) queue.push_back(points[next]);
      last = &points[next];
      ++next;
    }
    if (last != nullptr && End(*last) >= window_end) {
      absl::StatusOr<double> mean = AverageOverPeriod(
          std::vector<EmissionsPoint>(queue.begin(), queue.end()), window_start, window_end);
      if (!mean.ok()) return mean.status();
      averages.push_back({last->location, window_start, window_end - window_start, *mean});
    }
    window_start += tick;
    window_end = window_start + window;
    if (window_end > end_bound) break;
    while (!queue.empty() && End(queue.front()) < window_start) queue.pop_front();
  }
  return averages;
}

std::vector<EmissionsPoint> FilterByDuration(const std::vector<EmissionsPoint>& points,
                                             absl::Time start, absl::Time end) {
  std::vector<EmissionsPoint> kept;
  for (const EmissionsPoint& point : points) {
    if (End(point) > start && point.time <= end) kept.push_back(point);
  }
  return kept;
}

std::vector<EmissionsPoint> OptimalPoints(const std::vector<EmissionsPoint>& points) {
  std::vector<EmissionsPoint> best;
  if (points.empty()) return best;
  const double lowest =
      std::min_element(points.begin(), points.end(), [](const auto& a, const auto& b) {
        return a.rating < b.rating;
      })->rating;
  for (const EmissionsPoint& point : points) {
    if (point.rating == lowest) best.push_back(point);
  }
  return best;
}

}  // namespace carbonroute::carbon_aware
