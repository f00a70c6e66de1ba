#include "contract/region_locations.h"

#include <vector>

#include "absl/strings/numbers.h"
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

absl::StatusOr<std::map<std::string, std::string, std::less<>>> ParseRegionCoordinatesCsv(
    absl::string_view csv, absl::string_view origin) {
  std::map<std::string, std::string, std::less<>> rows;
  absl::Status status = ForEachCsvRow(
      csv, origin, 3,
      [&](std::size_t line_number, const std::vector<absl::string_view>& cells) -> absl::Status {
        double latitude = 0, longitude = 0;
        if (cells[0].empty() || !absl::SimpleAtod(cells[1], &latitude) ||
            !absl::SimpleAtod(cells[2], &longitude) || latitude < -90 || latitude > 90 ||
            longitude < -180 || longitude > 180) {
          return absl::InvalidArgumentError(
              absl::StrCat(origin, ":", line_number,
                           ": expected a region, a latitude in [-90, 90] and a longitude in "
                           "[-180, 180]"));
        }
        rows[std::string(cells[0])] = absl::StrCat(cells[1], ",", cells[2]);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return rows;
}

}  // namespace carbonroute
