#include "exporter/text_exposition.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace carbonroute::exporter {

void AppendSampleValue(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
    return;
  }
  // The shortest digits that read back exactly; written in fixed notation
  // unless the decimal exponent is below -4 or at least 21 (0.0001 but
  // 5e-05, as Go's strconv 'g' and prometheus-cpp write small bounds).
  char text[32];
  const std::to_chars_result scientific =
      std::to_chars(text, text + sizeof(text), value, std::chars_format::scientific);
  const char* e = std::find(text, scientific.ptr, 'e');
  int exponent = 0;
  std::from_chars(e + (e[1] == '+' ? 2 : 1), scientific.ptr, exponent);
  if (exponent < -4 || exponent >= 21) {
    out.append(text, scientific.ptr);
    return;
  }
  const std::to_chars_result fixed =
      std::to_chars(text, text + sizeof(text), value, std::chars_format::fixed);
  out.append(text, fixed.ptr);
}

void AppendLabelValue(std::string& out, absl::string_view value) {
  for (const char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

void AppendFamilyHeader(std::string& out, absl::string_view name, absl::string_view help,
                        absl::string_view type) {
  absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

}  // namespace carbonroute::exporter
