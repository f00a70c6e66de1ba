// File: providers/iso_time.h
//
// Fast parse of the ISO 8601 / RFC 3339 timestamps the providers send:
//   YYYY-MM-DDTHH:MM[:SS[.fraction]](Z|±HH:MM)
// e.g. "2022-07-15T00:00:00+00:00" (WattTime), "2024-03-06T19:00:00.000Z"
// (Electricity Maps), "2018-01-20T12:00Z" (UK), without absl::ParseTime's
// general format machinery (why: bench/README.md).
// Returns false for any other layout or an impossible date/time (the caller
// may then try absl::ParseTime).
#ifndef CARBONROUTE_PROVIDERS_ISO_TIME_H_
#define CARBONROUTE_PROVIDERS_ISO_TIME_H_

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace carbonroute::providers {

bool ParseIsoTime(absl::string_view text, absl::Time& out);

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_ISO_TIME_H_
