// File: base/median.h
//
// The median of a set of durations: the RTT a zone pair is summarised by
// (the prober's carbonroute_zone_rtt_seconds, scheduler-lite's zone-pair
// fallback). Robust to a few slow or broken peers, where a mean is not.
//
// Thread safety: pure function.
#ifndef CARBONROUTE_BASE_MEDIAN_H_
#define CARBONROUTE_BASE_MEDIAN_H_

#include <vector>

#include "absl/time/time.h"

namespace carbonroute {

// The median of `values` (REQUIRES: not empty), reordering them; of an even
// count, the mean of the middle two.
absl::Duration Median(std::vector<absl::Duration>& values);

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_MEDIAN_H_
