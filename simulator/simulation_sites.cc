#include "simulator/simulation_sites.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"

namespace carbonroute::simulator {
namespace {

bool Names(const std::vector<std::string>& regions, absl::string_view zone,
           absl::string_view name) {
  return zone == name || std::find(regions.begin(), regions.end(), name) != regions.end();
}

// The first hour with an empty cell in `column`, if any.
std::optional<std::size_t> FirstGap(const IntensityTrace& trace, std::size_t column) {
  for (std::size_t hour = 0; hour < trace.hours(); ++hour) {
    if (!trace.Value(column, hour)) return hour;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> SiteTopology::SiteOf(absl::string_view zone_or_region) const {
  for (std::size_t i = 0; i < sites.size(); ++i) {
    if (Names(sites[i].regions, sites[i].zone, zone_or_region)) return i;
  }
  return std::nullopt;
}

const SkippedSite* SiteTopology::SkippedOf(absl::string_view zone_or_region) const {
  for (const SkippedSite& site : skipped) {
    if (Names(site.regions, site.zone, zone_or_region)) return &site;
  }
  return nullptr;
}

absl::StatusOr<SiteTopology> BuildSiteTopology(
    const std::map<std::string, std::string, std::less<>>& region_zones,
    const std::vector<RttMatrixEntry>& matrix, const IntensityTrace& trace) {
  std::map<std::string, std::vector<std::string>> regions_by_zone;  // ascending, both
  for (const auto& [region, zone] : region_zones) regions_by_zone[zone].push_back(region);

  SiteTopology topology;
  std::map<std::string, std::size_t, std::less<>> site_of_region;
  for (auto& [zone, regions] : regions_by_zone) {
    const std::optional<std::size_t> column = trace.ZoneIndex(zone);
    if (!column) {
      topology.skipped.push_back({zone, regions, "not in the trace"});
      continue;
    }
    if (const std::optional<std::size_t> gap = FirstGap(trace, *column)) {
      const absl::CivilHour hour =
          absl::CivilHour(trace.year(), 1, 1, 0) + static_cast<absl::civil_diff_t>(*gap);
      topology.skipped.push_back(
          {zone, regions, absl::StrCat("no data at ", absl::FormatCivilTime(hour), ":00Z")});
      continue;
    }
    for (const std::string& region : regions) site_of_region[region] = topology.sites.size();
    topology.sites.push_back({zone, regions, *column});
  }
  if (topology.sites.empty()) {
    return absl::InvalidArgumentError(
        "no site to simulate: no zone of the region → zone map has a complete column in the trace");
  }
  const std::size_t n = topology.sites.size();
  topology.rtt_ms.assign(n * n, std::numeric_limits<double>::quiet_NaN());
  for (const RttMatrixEntry& entry : matrix) {
    auto from = site_of_region.find(entry.sending_region);
    auto to = site_of_region.find(entry.receiving_region);
    if (from == site_of_region.end() || to == site_of_region.end()) continue;
    if (from->second == to->second) continue;  // a site to itself: the convention below
    double& ms = topology.rtt_ms[from->second * n + to->second];
    const double value = absl::ToDoubleMilliseconds(entry.rtt);
    if (std::isnan(ms) || value < ms) ms = value;
  }
  for (std::size_t i = 0; i < n; ++i) topology.rtt_ms[i * n + i] = kSiteSelfRttMs;
  return topology;
}

}  // namespace carbonroute::simulator
