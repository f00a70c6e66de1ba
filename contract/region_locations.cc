#include "contract/region_locations.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "contract/csv_rows.h"

namespace carbonroute {

absl::StatusOr<std::map<std::string, std::string, std::less<>>> ParseRegionLocationsCsv(
    absl::string_view csv, absl::string_view origin) {
  std::map<std::string, std::string, std::less<>> rows;
  absl::Status status = ForEachCsvRow(
      csv, origin, 2,
      [&](std::size_t line_number, const std::vector<absl::string_view>& cells) -> absl::Status {
        if (cells[0].empty() || cells[1].empty()) {
          return absl::InvalidArgumentError(
              absl::StrCat(origin, ":", line_number, ": empty region or zone"));
        }
        rows[std::string(cells[0])] = std::string(cells[1]);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return rows;
}

}  // namespace carbonroute
