// File: cache/intensity_record.h
//
// The cache's own value type for one stored carbon-intensity value (a current
// reading or one forecast point). The collector translates providers::Reading
// into this; cache/ does not know providers/. Rows are keyed by
// IntensitySeries (contract/intensity_series.h) and valid_from.
#ifndef CARBONROUTE_CACHE_INTENSITY_RECORD_H_
#define CARBONROUTE_CACHE_INTENSITY_RECORD_H_

#include <string>

#include "absl/time/time.h"
#include "contract/intensity_series.h"
#include "contract/value_kind.h"

namespace carbonroute::cache {

struct IntensityRecord {
  IntensitySeries series;
  absl::Time valid_from;                     // inclusive; stored with 1 s resolution
  absl::Time valid_to;                       // exclusive
  double value = 0;                          // in `kind`'s unit (gCO2eq/kWh, or a percentile)
  ValueKind kind = ValueKind::kGramsPerKwh;  // stored as its unit text (contract/value_kind.h)
  bool estimated = false;
  absl::Time fetched_at;  // when the collector got it from the provider
};

}  // namespace carbonroute::cache

#endif  // CARBONROUTE_CACHE_INTENSITY_RECORD_H_
