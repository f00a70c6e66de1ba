#include "base/duration_text.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace carbonroute {

std::optional<absl::Duration> ParseDurationText(absl::string_view text) {
  absl::string_view rest = text;
  bool negative = false;
  if (!rest.empty() && (rest.front() == '-' || rest.front() == '+')) {
    negative = rest.front() == '-';
    rest.remove_prefix(1);
  }
  if (rest == "0") return absl::ZeroDuration();
  if (rest.empty()) return std::nullopt;
  absl::Duration total = absl::ZeroDuration();
  while (!rest.empty()) {
    std::size_t number_end = 0;
    while (number_end < rest.size() &&
           (absl::ascii_isdigit(static_cast<unsigned char>(rest[number_end])) ||
            rest[number_end] == '.')) {
      ++number_end;
    }
    std::size_t unit_end = number_end;
    while (unit_end < rest.size() &&
           !absl::ascii_isdigit(static_cast<unsigned char>(rest[unit_end])) &&
           rest[unit_end] != '.') {
      ++unit_end;
    }
    const absl::string_view number = rest.substr(0, number_end);
    const absl::string_view unit = rest.substr(number_end, unit_end - number_end);
    if (number.empty() || unit.empty()) return std::nullopt;
    absl::Duration part;
    if (unit == "d" || unit == "w") {
      double count = 0;
      if (!absl::SimpleAtod(number, &count)) return std::nullopt;
      part = absl::Hours(count * (unit == "d" ? 24 : 24 * 7));
    } else if (!absl::ParseDuration(absl::StrCat(number, unit), &part)) {
      return std::nullopt;
    }
    total += part;
    rest.remove_prefix(unit_end);
  }
  if (total == absl::InfiniteDuration()) return std::nullopt;
  return negative ? -total : total;
}

}  // namespace carbonroute
