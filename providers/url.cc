#include "providers/url.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace carbonroute::providers {

std::string UrlEncode(absl::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "%%%02X", c);
    }
  }
  return out;
}

std::string Query(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    absl::StrAppend(&out, out.empty() ? "?" : "&", name, "=", UrlEncode(value));
  }
  return out;
}

bool ParseLatLon(absl::string_view location, double& latitude, double& longitude) {
  std::vector<absl::string_view> parts = absl::StrSplit(location, ',');
  return parts.size() == 2 &&
         absl::SimpleAtod(absl::StripAsciiWhitespace(parts[0]), &latitude) &&
         absl::SimpleAtod(absl::StripAsciiWhitespace(parts[1]), &longitude) && latitude >= -90 &&
         latitude <= 90 && longitude >= -180 && longitude <= 180;
}

}  // namespace carbonroute::providers
