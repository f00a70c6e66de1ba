#include "simulator/zone_groups.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace carbonroute::simulator {

absl::StatusOr<std::map<std::string, std::set<std::string>>> ParseZoneGroups(
    absl::string_view csv, absl::string_view origin) {
  std::vector<absl::string_view> lines = absl::StrSplit(csv, '\n', absl::SkipWhitespace());
  if (lines.empty()) return absl::InvalidArgumentError(absl::StrCat(origin, ": empty file"));
  const std::vector<absl::string_view> header =
      absl::StrSplit(absl::StripAsciiWhitespace(lines[0]), ',');
  if (header.empty() || header[0] != "zone_code") {
    return absl::InvalidArgumentError(
        absl::StrCat(origin, ":1: the header must start with zone_code"));
  }
  std::map<std::string, std::size_t> columns;  // group → column
  for (const char* group : kZoneGroups) {
    for (std::size_t c = 1; c < header.size(); ++c) {
      if (header[c] == group) columns[group] = c;
    }
    if (!columns.contains(group)) {
      return absl::InvalidArgumentError(
          absl::StrCat(origin, ":1: the header has no column \"", group, "\""));
    }
  }
  std::map<std::string, std::set<std::string>> groups;
  for (const char* group : kZoneGroups) groups[group];
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::vector<absl::string_view> cells =
        absl::StrSplit(absl::StripAsciiWhitespace(lines[i]), ',');
    if (cells.size() != header.size()) {
      return absl::InvalidArgumentError(absl::StrCat(origin, ":", i + 1, ": ", cells.size(),
                                                     " cells, the header has ", header.size()));
    }
    for (const auto& [group, column] : columns) {
      if (absl::StripAsciiWhitespace(cells[column]) == "1") groups[group].emplace(cells[0]);
    }
  }
  return groups;
}

}  // namespace carbonroute::simulator
