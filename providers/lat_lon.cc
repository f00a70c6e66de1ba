#include "providers/lat_lon.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace carbonroute::providers {

bool ParseLatLon(absl::string_view location, double& latitude, double& longitude) {
  std::vector<absl::string_view> parts = absl::StrSplit(location, ',');
  return parts.size() == 2 && absl::SimpleAtod(absl::StripAsciiWhitespace(parts[0]), &latitude) &&
         absl::SimpleAtod(absl::StripAsciiWhitespace(parts[1]), &longitude) && latitude >= -90 &&
         latitude <= 90 && longitude >= -180 && longitude <= 180;
}

}  // namespace carbonroute::providers
