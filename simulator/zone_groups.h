// File: simulator/zone_groups.h
//
// Grid zones grouped by continent, for the temporal simulation's table, from
// data/zone-groups.csv (the grouping Sukprasert et al., EuroSys 2024, use for
// their temporal figures: `global_modules/static_files/name_stats.csv` of
// umassos/decarbonization-potential, see data/NOTICE.md): a header
// `zone_code,...,<group>,<group>,...` and one row per zone with 1 in the
// columns of the groups it belongs to (RFC 4180: names may be quoted). The
// groups read are the columns named in kZoneGroups; "Global" is every zone of
// the trace, listed or not.
//
// Errors: kInvalidArgument naming the line for a header without zone_code or
// without one of kZoneGroups, or a row with the wrong number of cells.
// Thread safety: pure functions.
#ifndef CARBONROUTE_SIMULATOR_ZONE_GROUPS_H_
#define CARBONROUTE_SIMULATOR_ZONE_GROUPS_H_

#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace carbonroute::simulator {

inline constexpr char kGlobalGroup[] = "Global";
// The continental columns of data/zone-groups.csv, the groups of the study's figures.
inline constexpr const char* kZoneGroups[] = {"Americas", "Europe", "Asia", "Oceania"};

// group → zone codes (without "Global"). `origin` prefixes error messages.
absl::StatusOr<std::map<std::string, std::set<std::string>>> ParseZoneGroups(
    absl::string_view csv, absl::string_view origin);

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_ZONE_GROUPS_H_
