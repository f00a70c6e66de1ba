// File: base/data_files.h
//
// Reading whole files and finding data files named by a relative path: shared
// by the collector (configuration, replay trace, RTT matrix, secrets) and
// scheduler-lite (RTT matrix, region map, Karmada policy). In config/ because
// it is the leaf every binary links.
//
// Thread safety: functions only read the file system and the environment.
#ifndef CARBONROUTE_BASE_DATA_FILES_H_
#define CARBONROUTE_BASE_DATA_FILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace carbonroute {

// The whole file. kNotFound "cannot read <kind> \"<path>\": <reason>" (the
// system's, e.g. "No such file or directory") if it cannot be opened.
absl::StatusOr<std::string> ReadFileToString(const std::string& path, absl::string_view kind);

// A secret kept in a file (a password, a token), without its trailing line
// ends. kNotFound "<what>: ..." if the file cannot be read or holds nothing.
// The contents are never part of a message.
absl::StatusOr<std::string> ReadSecretFile(const std::string& path, absl::string_view what);

// Where data files named by a relative path are looked for, in order.
struct DataPaths {
  std::vector<std::string> search_dirs;
};

// `first` (e.g. --data-dir flags), then $CARBONROUTE_DATA_DIR, then `extra`
// (if not empty), then next to the running binary (<dir>/../share/carbonroute,
// so an install under any prefix finds its data, and <dir>/../../data when the
// binary is in a checkout's build/bin: that folder holds CMakeLists.txt and
// data/), then the configured install directory; each folder once.
DataPaths DataPathsFrom(std::vector<std::string> first, const std::string& extra);

// `name` itself when it is absolute or exists relative to the working
// directory, else the first `search_dirs[i]/name` that exists.
// kNotFound listing every place tried.
// The shipped data files (data/, installed into the data directory), by the
// name FindDataFile looks for; data/NOTICE.md names their public sources.
inline constexpr char kIntensityTraceFile[] = "carbon-intensity-2022-hourly.csv";
// The cloud region table (AWS, Azure, Google Cloud, Oracle Cloud): region →
// grid zone and coordinates, wherever a location may be named by a region.
inline constexpr char kRegionZonesFile[] = "cloud-regions.csv";
// The temporal/spatial study's Google Cloud region → zone map: the simulator's
// sites (its published figures are computed over these regions).
inline constexpr char kStudyRegionZonesFile[] = "gcp-region-zones.csv";
inline constexpr char kInterRegionRttFile[] = "gcp-inter-region-latency-ms.csv";
inline constexpr char kRegionCoordinatesFile[] = "cloud-regions.csv";
inline constexpr char kZoneGroupsFile[] = "zone-groups.csv";

absl::StatusOr<std::string> FindDataFile(const std::string& name, const DataPaths& paths);

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_DATA_FILES_H_
