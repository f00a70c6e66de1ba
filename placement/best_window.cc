#include "placement/best_window.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "base/time_weighted_mean.h"

namespace carbonroute::placement {

absl::StatusOr<BestWindow> FindBestWindow(const std::vector<ForecastPoint>& points, absl::Time now,
                                          absl::Duration duration, absl::Time deadline) {
  if (duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("duration must be positive, got ", absl::FormatDuration(duration)));
  }
  if (deadline < now + duration) {
    return absl::InvalidArgumentError(absl::StrCat(
        "deadline ",
        absl::FormatTime(
            absl::Trunc(deadline - absl::UnixEpoch(), absl::Seconds(1)) + absl::UnixEpoch(),
            absl::UTCTimeZone()),
        " leaves no room for a ", absl::FormatDuration(duration), " run"));
  }
  std::set<absl::Time> starts = {now};
  for (const ForecastPoint& point : points) {
    if (point.valid_from > now) starts.insert(point.valid_from);
  }
  std::optional<BestWindow> best;
  const std::optional<double> from_now = TimeWeightedMean(points, now, now + duration);
  for (absl::Time start : starts) {
    if (start + duration > deadline) break;
    std::optional<double> mean = TimeWeightedMean(points, start, start + duration);
    if (!mean) continue;
    if (!best || *mean < best->mean_grams_per_kwh)
      best = BestWindow{start, *mean, from_now, std::nullopt};
  }
  if (!best) {
    return absl::NotFoundError(absl::StrCat(
        "the forecast covers no full ", absl::FormatDuration(duration), " run before ",
        absl::FormatTime(
            absl::Trunc(deadline - absl::UnixEpoch(), absl::Seconds(1)) + absl::UnixEpoch(),
            absl::UTCTimeZone())));
  }
  if (from_now && *from_now > 0)
    best->saving_fraction = (*from_now - best->mean_grams_per_kwh) / *from_now;
  return *best;
}

}  // namespace carbonroute::placement
