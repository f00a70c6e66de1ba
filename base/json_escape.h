// File: base/json_escape.h
//
// Text escaped for a JSON string (RFC 8259 §7), without the quotes: '"' and
// '\' backslashed, \n \r \t, other control characters as \u00XX; everything
// else, UTF-8 included, copied as it is. The extender's replies and the log
// lines (logfmt quotes its values the same way) both use it.
//
// Thread safety: pure function.
#ifndef CARBONROUTE_BASE_JSON_ESCAPE_H_
#define CARBONROUTE_BASE_JSON_ESCAPE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace carbonroute {

// Appends `text` escaped to `out`. Runs that need no escaping are copied whole.
void AppendJsonEscaped(std::string& out, absl::string_view text);

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_JSON_ESCAPE_H_
