// File: collector/reading_records.h
//
// The one translation between providers::Reading and cache::IntensityRecord
// (providers/ and cache/ do not know each other).
#ifndef CARBONROUTE_COLLECTOR_READING_RECORDS_H_
#define CARBONROUTE_COLLECTOR_READING_RECORDS_H_

#include "absl/time/time.h"
#include "cache/intensity_record.h"
#include "providers/reading.h"

namespace carbonroute::collector {

// IntensityRecord::unit values.
inline constexpr char kGramsPerKwhUnit[] = "gCO2eq/kWh";
inline constexpr char kPercentileUnit[] = "percentile";

cache::IntensityRecord ToRecord(const providers::Reading& reading, absl::Time fetched_at);

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_READING_RECORDS_H_
