// File: providers/lat_lon.h
//
// A provider location given as coordinates, "latitude,longitude" in decimal
// degrees (WattTime /v3/region-from-loc and Electricity Maps accept them).
//
// Thread safety: pure function.
#ifndef CARBONROUTE_PROVIDERS_LAT_LON_H_
#define CARBONROUTE_PROVIDERS_LAT_LON_H_

#include "absl/strings/string_view.h"

namespace carbonroute::providers {

// True, with `latitude` in [-90, 90] and `longitude` in [-180, 180] set, when
// `location` is "latitude,longitude"; false (outputs unspecified) otherwise.
bool ParseLatLon(absl::string_view location, double& latitude, double& longitude);

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_LAT_LON_H_
