// File: carbon_aware/location_names.h
//
// The location names carbonroute's Carbon Aware SDK API accepts: a grid
// location the collector polls ("DE", "CAISO_NORTH"), or a cloud region of
// AWS, Azure, Google Cloud or Oracle Cloud whose grid zone it polls ("eastus",
// "us-east-1", "europe-west3", "us-ashburn-1", from the cloud region table,
// data/cloud-regions.csv), as the SDK takes cloud region names (its
// LocationsController lists them with their coordinates). Case is ignored,
// as the SDK's LocationSource ignores it (StringComparer.InvariantCultureIgnoreCase).
// Answers name the location as it was asked for.
//
// Shapes: `regions` maps region → grid location; `coordinates` region →
// "latitude,longitude" (the same table; a region without coordinates is
// listed without them); a region mapped to "" has no known zone.
// Errors: kNotFound naming the location and what it could have been, or
// saying that the region's grid zone is unknown.
// Thread safety: const methods; safe to share once built.
#ifndef CARBONROUTE_CARBON_AWARE_LOCATION_NAMES_H_
#define CARBONROUTE_CARBON_AWARE_LOCATION_NAMES_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace carbonroute::carbon_aware {

// One entry of GET /locations: the SDK's Location (name, latitude, longitude).
struct NamedLocation {
  std::string name;
  std::string grid_location;
  std::optional<double> latitude;
  std::optional<double> longitude;
};

class LocationNames {
 public:
  LocationNames() = default;
  LocationNames(std::map<std::string, std::string, std::less<>> regions,
                std::map<std::string, std::string, std::less<>> coordinates);

  // The grid location `name` stands for, given the grid locations polled.
  absl::StatusOr<std::string> GridLocation(absl::string_view name,
                                           const std::vector<std::string>& polled) const;

  // Every name that GridLocation accepts, sorted by name: the polled grid
  // locations, then the regions whose grid location is polled.
  std::vector<NamedLocation> All(const std::vector<std::string>& polled) const;

 private:
  std::map<std::string, std::string, std::less<>> regions_;
  std::map<std::string, std::string, std::less<>> coordinates_;
};

}  // namespace carbonroute::carbon_aware

#endif  // CARBONROUTE_CARBON_AWARE_LOCATION_NAMES_H_
