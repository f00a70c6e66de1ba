// File: providers/reading.h
//
// One carbon-intensity value over a validity interval, as a provider reports
// it. Providers produce these for the location asked; which series a reading
// belongs to (provider, location, emissions type: contract/intensity_series.h)
// is the caller's to know, as the poller does, so a reading does not repeat it.
// The collector stores readings in the cache and exports them. The cache has
// its own record type, so providers/ and cache/ never include each other.
#ifndef CARBONROUTE_PROVIDERS_READING_H_
#define CARBONROUTE_PROVIDERS_READING_H_

#include <string>

#include "absl/time/time.h"
#include "contract/value_kind.h"

namespace carbonroute::providers {

struct Reading {
  ValueKind kind = ValueKind::kGramsPerKwh;  // contract/value_kind.h
  double value = 0;                          // in the unit `kind` names
  bool estimated = false;  // true when the provider says the value is an estimate, not measured
  absl::Time valid_from;   // inclusive
  absl::Time valid_to;     // exclusive
  std::string
      source_units;  // the unit the provider answered in (e.g. "lbs_co2_per_mwh"), if it said

  bool Covers(absl::Time t) const { return valid_from <= t && t < valid_to; }
};

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_READING_H_
