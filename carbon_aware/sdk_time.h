// File: carbon_aware/sdk_time.h
//
// Times and durations as the Carbon Aware SDK's Web API writes and reads them
// (ASP.NET Core with System.Text.Json, https://learn.microsoft.com/dotnet/
// standard/datetime/system-text-json-support):
//   - a DateTimeOffset is written ISO 8601 with its offset, in UTC here:
//     "2022-08-23T14:25:00+00:00", fractional seconds only when there are any
//     (at most 7 digits, trailing zeros dropped);
//   - a TimeSpan is written "[d.]hh:mm:ss[.fffffff]": "00:05:00", "1.00:00:00";
//   - a query's DateTimeOffset is read from ISO 8601: "2022-03-01T15:30:00Z",
//     "...+01:00", with or without fractional seconds, 'T' or a space between
//     date and time; a time without an offset, or a date alone, is UTC (ASP.NET
//     would take the server's local time zone; a collector's is UTC in its
//     container).
// Errors: ParseDateTimeOffset returns kInvalidArgument for anything else.
// Thread safety: pure functions.
#ifndef CARBONROUTE_CARBON_AWARE_SDK_TIME_H_
#define CARBONROUTE_CARBON_AWARE_SDK_TIME_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace carbonroute::carbon_aware {

std::string FormatDateTimeOffset(absl::Time t);
std::string FormatTimeSpan(absl::Duration d);
absl::StatusOr<absl::Time> ParseDateTimeOffset(absl::string_view text);

}  // namespace carbonroute::carbon_aware

#endif  // CARBONROUTE_CARBON_AWARE_SDK_TIME_H_
