// File: base/backoff.h
//
// Exponential backoff with jitter, as every retry loop uses it (the
// collector's provider poller, kube/list_watch.h's list-then-watch under
// Node discovery and the controllers' watches): after the n-th consecutive failure,
// initial × 2^(n−1), capped at max, times a factor drawn uniformly from
// [0.5, 1.5), so that many collectors failing together do not retry in step
// ("Exponential Backoff And Jitter", AWS Architecture Blog, 2015).
//
// Thread safety: pure function; `random` is the caller's and is advanced.
#ifndef CARBONROUTE_BASE_BACKOFF_H_
#define CARBONROUTE_BASE_BACKOFF_H_

#include <random>

#include "absl/time/time.h"

namespace carbonroute {

// REQUIRES: failures ≥ 1.
absl::Duration JitteredBackoff(absl::Duration initial, absl::Duration max, int failures,
                               std::mt19937_64& random);

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_BACKOFF_H_
