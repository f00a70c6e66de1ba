#include "carbon_aware/sdk_time.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace carbonroute::carbon_aware {
namespace {

// ".fffffff" without trailing zeros, or "" for whole seconds (100 ns ticks, as .NET).
std::string Fraction(int64_t ticks) {
  if (ticks == 0) return "";
  std::string digits = absl::StrFormat("%07d", ticks);
  digits.erase(digits.find_last_not_of('0') + 1);
  return "." + digits;
}

}  // namespace

std::string FormatDateTimeOffset(absl::Time t) {
  const absl::Time second = absl::FromUnixSeconds(absl::ToUnixSeconds(t));
  const int64_t ticks = (t - second) / absl::Nanoseconds(100);
  return absl::StrCat(absl::FormatTime("%Y-%m-%dT%H:%M:%S", second, absl::UTCTimeZone()),
                      Fraction(ticks), "+00:00");
}

std::string FormatTimeSpan(absl::Duration d) {
  std::string sign;
  if (d < absl::ZeroDuration()) {
    sign = "-";
    d = -d;
  }
  const int64_t ticks = d / absl::Nanoseconds(100);
  const int64_t seconds = ticks / 10'000'000;
  const int64_t days = seconds / 86400;
  return absl::StrCat(
      sign, days > 0 ? absl::StrCat(days, ".") : "",
      absl::StrFormat("%02d:%02d:%02d", (seconds / 3600) % 24, (seconds / 60) % 60, seconds % 60),
      Fraction(ticks % 10'000'000));
}

absl::StatusOr<absl::Time> ParseDateTimeOffset(absl::string_view text) {
  const std::string input(text);
  for (const char* format :
       {"%Y-%m-%d%ET%H:%M:%E*S%Ez", "%Y-%m-%d %H:%M:%E*S%Ez", "%Y-%m-%d%ET%H:%M:%E*S",
        "%Y-%m-%d %H:%M:%E*S", "%Y-%m-%d%ET%H:%M%Ez", "%Y-%m-%d%ET%H:%M", "%Y-%m-%d"}) {
    absl::Time t;
    std::string error;
    if (absl::ParseTime(format, input, absl::UTCTimeZone(), &t, &error)) return t;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("'", text, "' is not an ISO 8601 date and time (e.g. 2022-03-01T15:30:00Z)"));
}

}  // namespace carbonroute::carbon_aware
