// File: polling/reading_records.h
//
// The one translation between providers::Reading and cache::IntensityRecord
// (providers/ and cache/ do not know each other), and from stored records to
// the gCO2eq/kWh points the collector's readers answer with.
#ifndef CARBONROUTE_POLLING_READING_RECORDS_H_
#define CARBONROUTE_POLLING_READING_RECORDS_H_

#include <vector>

#include "absl/time/time.h"
#include "cache/intensity_record.h"
#include "contract/forecast_api.h"
#include "contract/intensity_series.h"
#include "providers/reading.h"

namespace carbonroute::polling {

// `reading` as a record of `series`: the series the poller asked for, whose
// location is the grid location label even when the provider was called with
// another code for it (collector/node_locations.h).
cache::IntensityRecord ToRecord(const providers::Reading& reading, const IntensitySeries& series,
                                absl::Time fetched_at);

// The gCO2eq/kWh records of `records` as points, in order (a percentile
// signal is not an intensity and is left out).
std::vector<ForecastPoint> IntensityPoints(const std::vector<cache::IntensityRecord>& records);

// How far ahead the collector's readers (/api/v1/forecast, the Carbon Aware
// SDK API) look into the cached forecast: eight days, the whole of any
// provider's forecast.
inline constexpr absl::Duration kCachedForecastSpan = absl::Hours(24 * 8);

}  // namespace carbonroute::polling

#endif  // CARBONROUTE_POLLING_READING_RECORDS_H_
