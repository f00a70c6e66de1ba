// File: test/keda/fake_carbon_aware_data.h
//
// CarbonAwareData over maps the test fills: observed readings and cached
// forecasts by grid location; `fail` makes every read kUnavailable.
#ifndef CARBONROUTE_TEST_KEDA_FAKE_CARBON_AWARE_DATA_H_
#define CARBONROUTE_TEST_KEDA_FAKE_CARBON_AWARE_DATA_H_

#include <map>
#include <string>
#include <vector>

#include "carbon_aware/carbon_aware_api.h"

namespace carbonroute::testing {

struct FakeCarbonAwareData final : carbon_aware::CarbonAwareData {
  std::vector<std::string> GridLocations() const override {
    std::vector<std::string> locations;
    for (const auto& [location, points] : observed) locations.push_back(location);
    return locations;
  }
  absl::StatusOr<std::vector<ForecastPoint>> Observed(const std::string& location, absl::Time from,
                                                      absl::Time to) const override {
    if (fail) return absl::UnavailableError("the cache cannot be read");
    std::vector<ForecastPoint> overlapping;
    if (auto found = observed.find(location); found != observed.end()) {
      for (const ForecastPoint& point : found->second) {
        if (point.valid_to > from && point.valid_from < to) overlapping.push_back(point);
      }
    }
    return overlapping;
  }
  absl::StatusOr<carbon_aware::CachedForecast> Forecast(const std::string& location,
                                                        absl::Time now) const override {
    if (fail) return absl::UnavailableError("the cache cannot be read");
    auto found = forecast.find(location);
    if (found == forecast.end()) return carbon_aware::CachedForecast();
    carbon_aware::CachedForecast from_now = found->second;
    std::erase_if(from_now.points, [now](const ForecastPoint& p) { return p.valid_to <= now; });
    return from_now;
  }

  std::map<std::string, std::vector<ForecastPoint>> observed;
  std::map<std::string, carbon_aware::CachedForecast> forecast;
  bool fail = false;
};

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_KEDA_FAKE_CARBON_AWARE_DATA_H_
