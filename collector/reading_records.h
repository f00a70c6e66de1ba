// File: collector/reading_records.h
//
// The one translation between providers::Reading and cache::IntensityRecord
// (providers/ and cache/ do not know each other).
#ifndef CARBONROUTE_COLLECTOR_READING_RECORDS_H_
#define CARBONROUTE_COLLECTOR_READING_RECORDS_H_

#include "absl/time/time.h"
#include "cache/intensity_record.h"
#include "contract/intensity_series.h"
#include "providers/reading.h"

namespace carbonroute::collector {

// `reading` as a record of `series`: the series the poller asked for, whose
// location is the grid location label even when the provider was called with
// another code for it (collector/node_locations.h).
cache::IntensityRecord ToRecord(const providers::Reading& reading, const IntensitySeries& series,
                                absl::Time fetched_at);

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_READING_RECORDS_H_
