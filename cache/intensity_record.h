// File: cache/intensity_record.h
//
// The cache's own value type for one stored carbon-intensity value (a current
// reading or one forecast point). The collector translates providers::Reading
// into this; cache/ does not know providers/.
#ifndef CARBONROUTE_CACHE_INTENSITY_RECORD_H_
#define CARBONROUTE_CACHE_INTENSITY_RECORD_H_

#include <string>

#include "absl/time/time.h"
#include "contract/emissions_type.h"

namespace carbonroute::cache {

// Identifies one time series: what the key (provider, location,
// emissions_type) of the `readings` and `forecasts` tables names.
struct SeriesKey {
  std::string provider;
  std::string location;
  EmissionsType emissions_type = EmissionsType::kAverage;
};

struct IntensityRecord {
  SeriesKey series;
  absl::Time valid_from;   // inclusive; stored with 1 s resolution
  absl::Time valid_to;     // exclusive
  double value = 0;        // in `unit`
  std::string unit = "gCO2eq/kWh";  // or "percentile"
  bool estimated = false;
  absl::Time fetched_at;   // when the collector got it from the provider
};

}  // namespace carbonroute::cache

#endif  // CARBONROUTE_CACHE_INTENSITY_RECORD_H_
