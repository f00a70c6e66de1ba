// File: contract/region_locations.h
//
// The region → grid location file format, `gcp_region,zone` with a header
// line (data/gcp-region-zones.csv): which grid zone (Electricity Maps zone
// code) powers each cloud region. Read by the collector (a discovered node
// without a carbonroute.io/location label gets its region's zone) and by
// scheduler-lite (a candidate region's grid location).
//
// Errors: kInvalidArgument "origin:line: expected 2 cells, got N" for a
// malformed row, and "origin:line: empty region or zone".
// Thread safety: pure function.
#ifndef CARBONROUTE_CONTRACT_REGION_LOCATIONS_H_
#define CARBONROUTE_CONTRACT_REGION_LOCATIONS_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace carbonroute {

// region → grid location; a region listed twice keeps its last row.
absl::StatusOr<std::map<std::string, std::string, std::less<>>> ParseRegionLocationsCsv(
    absl::string_view csv, absl::string_view origin);

// The region → coordinates file, `gcp_region,latitude,longitude` with a
// header line (data/gcp-region-coordinates.csv): region → "latitude,longitude"
// as WattTime's /v3/region-from-loc takes them (providers/lat_lon.h).
// Errors: kInvalidArgument "origin:line: ..." for a malformed row or a
// latitude outside [-90, 90] or longitude outside [-180, 180].
absl::StatusOr<std::map<std::string, std::string, std::less<>>> ParseRegionCoordinatesCsv(
    absl::string_view csv, absl::string_view origin);

}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_REGION_LOCATIONS_H_
