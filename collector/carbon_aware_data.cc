#include "collector/carbon_aware_data.h"

#include <algorithm>
#include <utility>

#include "collector/reading_records.h"

namespace carbonroute::collector {

CacheCarbonAwareData::CacheCarbonAwareData(cache::ReadingStore& store, const Poller& poller,
                                           std::vector<IntensitySeries> providers)
    : store_(store), poller_(poller), providers_(std::move(providers)) {}

std::vector<IntensitySeries> CacheCarbonAwareData::SeriesOf(const std::string& location) const {
  std::vector<IntensitySeries> series;
  for (const IntensitySeries& provider : providers_) {
    const std::vector<std::string> polled = poller_.Locations(provider.provider);
    if (std::find(polled.begin(), polled.end(), location) == polled.end()) continue;
    series.push_back({provider.provider, location, provider.emissions_type});
  }
  return series;
}

std::vector<std::string> CacheCarbonAwareData::GridLocations() const {
  std::vector<std::string> all;
  for (const IntensitySeries& provider : providers_) {
    for (const std::string& location : poller_.Locations(provider.provider)) {
      if (std::find(all.begin(), all.end(), location) == all.end()) all.push_back(location);
    }
  }
  std::sort(all.begin(), all.end());
  return all;
}

absl::StatusOr<std::vector<ForecastPoint>> CacheCarbonAwareData::Observed(
    const std::string& location, absl::Time from, absl::Time to) const {
  for (const IntensitySeries& series : SeriesOf(location)) {
    absl::StatusOr<std::vector<cache::IntensityRecord>> records =
        store_.ReadingsBetween(series, from, to);
    if (!records.ok()) return records.status();
    std::vector<ForecastPoint> points = IntensityPoints(*records);
    if (!points.empty()) return points;
  }
  return std::vector<ForecastPoint>();
}

absl::StatusOr<carbon_aware::CachedForecast> CacheCarbonAwareData::Forecast(
    const std::string& location, absl::Time now) const {
  for (const IntensitySeries& series : SeriesOf(location)) {
    absl::StatusOr<std::vector<cache::IntensityRecord>> records =
        store_.ForecastBetween(series, now, now + kCachedForecastSpan);
    if (!records.ok()) return records.status();
    carbon_aware::CachedForecast forecast;
    forecast.points = IntensityPoints(*records);
    if (forecast.points.empty()) continue;
    for (const cache::IntensityRecord& record : *records) {
      forecast.fetched_at = std::max(forecast.fetched_at, record.fetched_at);
    }
    return forecast;
  }
  return carbon_aware::CachedForecast();
}

}  // namespace carbonroute::collector
