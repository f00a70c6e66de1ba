// File: base/utc_time.h
//
// A time as RFC 3339 in UTC with whole seconds, "2026-11-23T06:00:00Z"
// (https://www.rfc-editor.org/rfc/rfc3339): what the forecast API, the JSON
// and table outputs, the status page and log-facing messages write.
// Fractions of a second are dropped. Header-only.
// Thread safety: pure function.
#ifndef CARBONROUTE_BASE_UTC_TIME_H_
#define CARBONROUTE_BASE_UTC_TIME_H_

#include <string>

#include "absl/time/time.h"

namespace carbonroute {

inline std::string UtcSeconds(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_UTC_TIME_H_
