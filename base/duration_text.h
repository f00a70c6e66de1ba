// File: base/duration_text.h
//
// One duration syntax for every flag, configuration key and annotation a
// person types: Go's (absl::ParseDuration: "90s", "1h30m", "250ms") plus
// whole or fractional days ("d", 24 h) and weeks ("w", 7 d), as Prometheus
// writes ranges ("30d", "2w", "1d12h"). A day is 24 hours here (no calendar,
// no daylight saving).
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_BASE_DURATION_TEXT_H_
#define CARBONROUTE_BASE_DURATION_TEXT_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace carbonroute {

// The duration `text` writes, or nullopt when it is not one: a sequence of
// decimal numbers each with a unit (ns, us, µs, ms, s, m, h, d, w), optionally
// signed as a whole; "0" alone is zero. Surrounding whitespace is not allowed
// (callers trim what they read from lists).
std::optional<absl::Duration> ParseDurationText(absl::string_view text);

// The units ParseDurationText reads, for messages: "ms, s, m, h, d or w".
inline constexpr absl::string_view kDurationUnits = "ms, s, m, h, d (24h) or w (7d)";

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_DURATION_TEXT_H_
