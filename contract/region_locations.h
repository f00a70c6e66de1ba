// File: contract/region_locations.h
//
// The region tables: which grid zone (Electricity Maps zone code) powers each
// cloud region, and where the region is. Two shapes, told apart by the header:
//   - the cloud region table, data/cloud-regions.csv:
//     `provider,region,zone,watttime_region,latitude,longitude` (AWS, Azure,
//     Google Cloud and Oracle Cloud regions; sources in data/NOTICE.md); a
//     region whose zone is unknown has an empty `zone`, one whose place is
//     unknown empty coordinates;
//   - the Google Cloud files of the temporal/spatial study: `gcp_region,zone`
//     (data/gcp-region-zones.csv) and `gcp_region,latitude,longitude`
//     (data/gcp-region-coordinates.csv).
// Read by the collector (a discovered Node without a carbonroute.io/location
// label gets its region's zone), scheduler-lite (a candidate region's grid
// location) and the Carbon Aware SDK API (a location named by a cloud region).
//
// Shapes: region → grid location; region → "latitude,longitude" in decimal
// degrees, as WattTime's /v3/region-from-loc takes them (providers/lat_lon.h).
// A region listed twice keeps its last row. Region names are matched exactly
// here; callers ignore case where their users expect it.
// Errors: kInvalidArgument "origin:line: ..." for a malformed row (wrong cell
// count, an empty region, an empty zone in the two-column file, a latitude
// outside [-90, 90] or longitude outside [-180, 180]).
// Thread safety: pure functions.
#ifndef CARBONROUTE_CONTRACT_REGION_LOCATIONS_H_
#define CARBONROUTE_CONTRACT_REGION_LOCATIONS_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace carbonroute {

// region → grid location. In the cloud region table a region with an empty
// zone maps to "" (known, but its grid zone is not).
absl::StatusOr<std::map<std::string, std::string, std::less<>>> ParseRegionLocationsCsv(
    absl::string_view csv, absl::string_view origin);

// region → "latitude,longitude"; regions without coordinates are left out.
absl::StatusOr<std::map<std::string, std::string, std::less<>>> ParseRegionCoordinatesCsv(
    absl::string_view csv, absl::string_view origin);

}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_REGION_LOCATIONS_H_
