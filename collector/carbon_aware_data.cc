#include "collector/carbon_aware_data.h"

#include <algorithm>
#include <utility>

#include "polling/reading_records.h"

namespace carbonroute::collector {

std::vector<IntensitySeries> CacheCarbonAwareData::SeriesOf(const std::string& location) const {
  std::vector<IntensitySeries> series = poller_.PolledSeries();
  std::erase_if(series, [&](const IntensitySeries& one) { return one.location != location; });
  return series;
}

std::vector<std::string> CacheCarbonAwareData::GridLocations() const {
  std::vector<std::string> all;
  for (IntensitySeries& series : poller_.PolledSeries()) all.push_back(std::move(series.location));
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

absl::StatusOr<std::vector<ForecastPoint>> CacheCarbonAwareData::Observed(
    const std::string& location, absl::Time from, absl::Time to) const {
  for (const IntensitySeries& series : SeriesOf(location)) {
    absl::StatusOr<std::vector<cache::IntensityRecord>> records =
        store_.ReadingsBetween(series, from, to);
    if (!records.ok()) return records.status();
    std::vector<ForecastPoint> points = polling::IntensityPoints(*records);
    if (!points.empty()) return points;
  }
  return std::vector<ForecastPoint>();
}

absl::StatusOr<carbon_aware::CachedForecast> CacheCarbonAwareData::Forecast(
    const std::string& location, absl::Time now) const {
  for (const IntensitySeries& series : SeriesOf(location)) {
    absl::StatusOr<std::vector<cache::IntensityRecord>> records =
        store_.ForecastBetween(series, now, now + polling::kCachedForecastSpan);
    if (!records.ok()) return records.status();
    carbon_aware::CachedForecast forecast;
    forecast.points = polling::IntensityPoints(*records);
    if (forecast.points.empty()) continue;
    for (const cache::IntensityRecord& record : *records) {
      forecast.fetched_at = std::max(forecast.fetched_at, record.fetched_at);
    }
    return forecast;
  }
  return carbon_aware::CachedForecast();
}

}  // namespace carbonroute::collector
