#include "contract/region_locations.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "contract/csv_rows.h"

namespace carbonroute {
namespace {

using RegionTable = std::map<std::string, std::string, std::less<>>;

// The header of data/cloud-regions.csv; its cells, by position.
constexpr absl::string_view kCloudRegionsHeader = "provider,region,zone,watttime_region,";
enum CloudRegionCell { kRegion = 1, kZone = 2, kLatitude = 4, kLongitude = 5, kCloudCells = 6 };

bool IsCloudRegionTable(absl::string_view csv) {
  return absl::StartsWith(csv, kCloudRegionsHeader);
}

absl::Status EmptyRegion(absl::string_view origin, std::size_t line_number) {
  return absl::InvalidArgumentError(absl::StrCat(origin, ":", line_number, ": empty region"));
}

// "latitude,longitude" from two cells; kInvalidArgument naming the line.
absl::StatusOr<std::string> Coordinates(absl::string_view latitude_cell,
                                        absl::string_view longitude_cell, absl::string_view origin,
                                        std::size_t line_number) {
  double latitude = 0, longitude = 0;
  if (!absl::SimpleAtod(latitude_cell, &latitude) ||
      !absl::SimpleAtod(longitude_cell, &longitude) || latitude < -90 || latitude > 90 ||
      longitude < -180 || longitude > 180) {
    return absl::InvalidArgumentError(
        absl::StrCat(origin, ":", line_number,
                     ": expected a latitude in [-90, 90] and a longitude in [-180, 180], got \"",
                     latitude_cell, "\", \"", longitude_cell, "\""));
  }
  return absl::StrCat(latitude_cell, ",", longitude_cell);
}

}  // namespace

absl::StatusOr<RegionTable> ParseRegionLocationsCsv(absl::string_view csv,
                                                    absl::string_view origin) {
  RegionTable rows;
  const bool cloud = IsCloudRegionTable(csv);
  absl::Status status = ForEachCsvRow(
      csv, origin, cloud ? kCloudCells : 2,
      [&](std::size_t line_number, const std::vector<absl::string_view>& cells) -> absl::Status {
        const absl::string_view region = cells[cloud ? kRegion : 0];
        const absl::string_view zone = cells[cloud ? kZone : 1];
        if (cloud && region.empty()) return EmptyRegion(origin, line_number);
        if (!cloud && (region.empty() || zone.empty())) {
          return absl::InvalidArgumentError(
              absl::StrCat(origin, ":", line_number, ": empty region or zone"));
        }
        rows[std::string(region)] = std::string(zone);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return rows;
}

absl::StatusOr<RegionTable> ParseRegionCoordinatesCsv(absl::string_view csv,
                                                      absl::string_view origin) {
  RegionTable rows;
  const bool cloud = IsCloudRegionTable(csv);
  absl::Status status = ForEachCsvRow(
      csv, origin, cloud ? kCloudCells : 3,
      [&](std::size_t line_number, const std::vector<absl::string_view>& cells) -> absl::Status {
        const absl::string_view region = cells[cloud ? kRegion : 0];
        const absl::string_view latitude = cells[cloud ? kLatitude : 1];
        const absl::string_view longitude = cells[cloud ? kLongitude : 2];
        if (region.empty()) return EmptyRegion(origin, line_number);
        if (cloud && latitude.empty() && longitude.empty()) return absl::OkStatus();
        absl::StatusOr<std::string> coordinates =
            Coordinates(latitude, longitude, origin, line_number);
        if (!coordinates.ok()) return coordinates.status();
        rows[std::string(region)] = *std::move(coordinates);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return rows;
}

}  // namespace carbonroute
