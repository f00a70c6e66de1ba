#include "contract/region_locations.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace carbonroute {

absl::StatusOr<std::map<std::string, std::string, std::less<>>> ParseRegionLocationsCsv(
    absl::string_view csv, absl::string_view origin) {
  std::map<std::string, std::string, std::less<>> rows;
  std::size_t line_number = 0;
  for (absl::string_view line : absl::StrSplit(csv, '\n')) {
    ++line_number;
    line = absl::StripSuffix(line, "\r");
    if (line_number == 1 || line.empty()) continue;  // header
    std::vector<absl::string_view> cells = absl::StrSplit(line, ',');
    if (cells.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(origin, ":", line_number, ": expected 2 cells, got ", cells.size()));
    }
    if (cells[0].empty() || cells[1].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(origin, ":", line_number, ": empty region or zone"));
    }
    rows[std::string(cells[0])] = std::string(cells[1]);
  }
  return rows;
}

}  // namespace carbonroute
