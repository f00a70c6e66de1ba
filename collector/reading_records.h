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

cache::IntensityRecord ToRecord(const providers::Reading& reading, absl::Time fetched_at);

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_READING_RECORDS_H_
