// File: contract/intensity_series.h
//
// The key of one carbon-intensity time series, wherever it appears: a row of
// the cache's `readings` and `forecasts` tables, the labels
// {provider, location, emissions_type} of the carbon-intensity metrics, the
// poller's per-series state, and scheduler-lite's reading of those metrics.
//
// Thread safety: a value type.
#ifndef CARBONROUTE_CONTRACT_INTENSITY_SERIES_H_
#define CARBONROUTE_CONTRACT_INTENSITY_SERIES_H_

#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "contract/emissions_type.h"

namespace carbonroute {

struct IntensitySeries {
  std::string provider;  // the configured provider name
  std::string location;  // the provider's grid location code
  EmissionsType emissions_type = EmissionsType::kAverage;

  auto Tie() const { return std::tie(provider, location, emissions_type); }
  bool operator==(const IntensitySeries& other) const { return Tie() == other.Tie(); }
  bool operator<(const IntensitySeries& other) const { return Tie() < other.Tie(); }

  // "provider/location/emissions_type", for logs.
  std::string ToString() const {
    return absl::StrCat(provider, "/", location, "/", EmissionsTypeName(emissions_type));
  }
};

}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_INTENSITY_SERIES_H_
