// File: collector/carbon_aware_data.h
//
// The collector's cache as the Carbon Aware SDK API reads it
// (carbon_aware/carbon_aware_api.h): the grid locations the providers poll
// now, a location's stored readings and its cached forecast. A location is
// answered from the first configured provider that polls it and has data of
// the asked kind (gCO2eq/kWh only: a percentile signal is not an intensity).
// Never calls a provider.
//
// Ownership: borrows the store and the poller, which must outlive it.
// Thread safety: as the store and Poller::Locations: safe from any thread.
#ifndef CARBONROUTE_COLLECTOR_CARBON_AWARE_DATA_H_
#define CARBONROUTE_COLLECTOR_CARBON_AWARE_DATA_H_

#include <string>
#include <vector>

#include "cache/reading_store.h"
#include "carbon_aware/carbon_aware_api.h"
#include "contract/intensity_series.h"
#include "polling/poller.h"

namespace carbonroute::collector {

class CacheCarbonAwareData : public carbon_aware::CarbonAwareData {
 public:
  CacheCarbonAwareData(cache::ReadingStore& store, const polling::Poller& poller)
      : store_(store), poller_(poller) {}

  std::vector<std::string> GridLocations() const override;
  absl::StatusOr<std::vector<ForecastPoint>> Observed(const std::string& location, absl::Time from,
                                                      absl::Time to) const override;
  absl::StatusOr<carbon_aware::CachedForecast> Forecast(const std::string& location,
                                                        absl::Time now) const override;

 private:
  // The series of the providers polling `location`, in configuration order.
  std::vector<IntensitySeries> SeriesOf(const std::string& location) const;

  cache::ReadingStore& store_;
  const polling::Poller& poller_;
};

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_CARBON_AWARE_DATA_H_
