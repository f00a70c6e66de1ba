#include "carbon_aware/location_names.h"

#include <algorithm>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace carbonroute::carbon_aware {
namespace {

bool Polled(absl::string_view location, const std::vector<std::string>& polled) {
  return std::find(polled.begin(), polled.end(), location) != polled.end();
}

// The polled grid location `name` names, ignoring case; nullptr if none.
const std::string* PolledIgnoringCase(absl::string_view name,
                                      const std::vector<std::string>& polled) {
  for (const std::string& location : polled) {
    if (absl::EqualsIgnoreCase(location, name)) return &location;
  }
  return nullptr;
}

// Whether `name` is UTF-8 (RFC 3629) without control characters: what a
// location name can be. Anything else is answered as such, its bytes escaped.
bool IsPrintableUtf8(absl::string_view name) {
  for (std::size_t i = 0; i < name.size();) {
    const auto byte = static_cast<unsigned char>(name[i]);
    if (byte < 0x20 || byte == 0x7f) return false;
    const int length = byte < 0x80           ? 1
                       : (byte >> 5) == 0x6  ? 2
                       : (byte >> 4) == 0xe  ? 3
                       : (byte >> 3) == 0x1e ? 4
                                             : 0;
    if (length == 0 || i + length > name.size()) return false;
    for (int k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(name[i + k]) >> 6) != 0x2) return false;
    }
    i += length;
  }
  return true;
}

}  // namespace

LocationNames::LocationNames(std::map<std::string, std::string, std::less<>> regions,
                             std::map<std::string, std::string, std::less<>> coordinates)
    : regions_(std::move(regions)), coordinates_(std::move(coordinates)) {}

absl::StatusOr<std::string> LocationNames::GridLocation(
    absl::string_view name, const std::vector<std::string>& polled) const {
  if (!IsPrintableUtf8(name)) {
    return absl::NotFoundError(absl::StrCat("\"", absl::CHexEscape(name),
                                            "\" is not a location name: it holds a control "
                                            "character or bytes that are not UTF-8"));
  }
  if (const std::string* location = PolledIgnoringCase(name, polled)) return *location;
  for (const auto& [region, location] : regions_) {
    if (!absl::EqualsIgnoreCase(region, name)) continue;
    if (location.empty()) {
      return absl::NotFoundError(absl::StrCat("location '", name,
                                              "' is a cloud region whose grid zone is unknown "
                                              "(the region table names none)"));
    }
    if (Polled(location, polled)) return location;
    return absl::NotFoundError(absl::StrCat("location '", name,
                                            "' is the cloud region of grid location ", location,
                                            ", which no provider polls here"));
  }
  return absl::NotFoundError(absl::StrCat(
      "unknown location '", name,
      "': neither a grid location polled here nor a cloud region of the region map (GET /locations "
      "lists them)"));
}

std::vector<NamedLocation> LocationNames::All(const std::vector<std::string>& polled) const {
  std::vector<NamedLocation> all;
  for (const std::string& location : polled) all.push_back({location, location, {}, {}});
  for (const auto& [region, location] : regions_) {
    if (!Polled(location, polled) || Polled(region, polled)) continue;
    NamedLocation& named = all.emplace_back(NamedLocation{region, location, {}, {}});
    if (auto found = coordinates_.find(region); found != coordinates_.end()) {
      std::pair<absl::string_view, absl::string_view> parts =
          absl::StrSplit(found->second, absl::MaxSplits(',', 1));
      double latitude = 0, longitude = 0;
      if (absl::SimpleAtod(parts.first, &latitude) && absl::SimpleAtod(parts.second, &longitude)) {
        named.latitude = latitude;
        named.longitude = longitude;
      }
    }
  }
  std::sort(all.begin(), all.end(),
            [](const NamedLocation& a, const NamedLocation& b) { return a.name < b.name; });
  return all;
}

}  // namespace carbonroute::carbon_aware
