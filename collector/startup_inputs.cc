#include "collector/startup_inputs.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "discovery/node_discovery.h"

namespace carbonroute::collector {
namespace {

// The region-keyed data file `name` (a `kind` of table) found and read with `parse`
// (ParseRegionLocationsCsv or ParseRegionCoordinatesCsv); errors prefixed with `what`.
absl::StatusOr<RegionLocations> ReadRegionTable(
    const std::string& name, const DataPaths& data, absl::string_view what, absl::string_view kind,
    absl::StatusOr<RegionLocations> (*parse)(absl::string_view, absl::string_view)) {
  absl::StatusOr<std::string> path = FindDataFile(name, data);
  if (!path.ok()) return Prefixed(path.status(), what);
  absl::StatusOr<std::string> csv = ReadFileToString(*path, kind);
  if (!csv.ok()) return Prefixed(csv.status(), what);
  absl::StatusOr<RegionLocations> table = parse(*csv, *path);
  if (!table.ok()) return Prefixed(table.status(), what);
  return table;
}

}  // namespace

absl::Status Prefixed(const absl::Status& status, absl::string_view what) {
  return absl::Status(status.code(), absl::StrCat(what, ": ", status.message()));
}

absl::Status ProviderError(const absl::Status& status, const std::string& name) {
  const std::string prefix = absl::StrCat("provider \"", name, "\"");
  if (absl::StartsWith(status.message(), prefix)) return status;
  return Prefixed(status, prefix);
}

absl::Duration LongestCall(const std::vector<ProviderConfig>& providers) {
  absl::Duration longest = absl::Seconds(5);
  for (const ProviderConfig& provider : providers) {
    if (provider.type == ProviderType::kReplay || provider.type == ProviderType::kStatic) continue;
    longest = std::max(longest, 2 * (provider.http.timeout + provider.http.connect_timeout));
  }
  return longest;
}

absl::StatusOr<std::vector<DeclaredRtt>> DeclaredRow(const NodeConfig& node, const RttConfig& rtt,
                                                     const DataPaths& data, std::string& path) {
  absl::StatusOr<std::string> matrix = FindDataFile(rtt.static_matrix, data);
  if (!matrix.ok()) return Prefixed(matrix.status(), "rtt.static_matrix");
  path = *matrix;
  absl::StatusOr<std::vector<DeclaredRtt>> row = DeclaredRttRow(node, rtt, path);
  if (!row.ok()) return Prefixed(row.status(), "rtt.static_matrix");
  return row;
}

absl::StatusOr<kube::KubeConnection> DiscoveryConnection(const CollectorConfig& config) {
  absl::StatusOr<kube::KubeConnection> connection =
      kube::ResolveKubeConnection(discovery::KubeOptionsFrom(config.rtt.kubernetes),
                                  {.getenv = [](const char* name) { return std::getenv(name); }});
  if (!connection.ok()) return Prefixed(connection.status(), "rtt.discovery.kubernetes");
  return connection;
}

absl::StatusOr<RegionLocations> DiscoveryRegionLocations(const CollectorConfig& config,
                                                         const DataPaths& data) {
  return ReadRegionTable(config.rtt.kubernetes.region_locations, data,
                         "rtt.discovery.kubernetes.region_locations", "region → location map",
                         ParseRegionLocationsCsv);
}

absl::StatusOr<RegionCoordinates> DiscoveryRegionCoordinates(const CollectorConfig& config,
                                                             const DataPaths& data) {
  if (std::none_of(config.providers.begin(), config.providers.end(), [](const auto& provider) {
        return provider.locations_from_nodes && provider.type == ProviderType::kWattTime;
      })) {
    return RegionCoordinates();
  }
  return ReadRegionTable(kRegionCoordinatesFile, data,
                         "WattTime regions of the Nodes (locations: nodes)",
                         "region → coordinates table", ParseRegionCoordinatesCsv);
}

carbon_aware::LocationNames CarbonAwareLocationNames(const DataPaths& data) {
  RegionLocations regions;
  RegionCoordinates coordinates;
  absl::StatusOr<RegionLocations> read =
      ReadRegionTable(kRegionZonesFile, data, "the Carbon Aware SDK API's regions",
                      "region → location map", ParseRegionLocationsCsv);
  if (read.ok()) {
    regions = *std::move(read);
  } else {
    spdlog::warn("{}: the Carbon Aware SDK API takes grid locations only",
                 std::string(read.status().message()));
  }
  absl::StatusOr<RegionCoordinates> located =
      ReadRegionTable(kRegionCoordinatesFile, data, "the Carbon Aware SDK API's regions",
                      "region → coordinates table", ParseRegionCoordinatesCsv);
  if (located.ok()) coordinates = *std::move(located);
  return carbon_aware::LocationNames(std::move(regions), std::move(coordinates));
}

}  // namespace carbonroute::collector
