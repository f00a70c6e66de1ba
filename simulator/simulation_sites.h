// File: simulator/simulation_sites.h
//
// The sites of `scheduler-lite simulate` and the RTTs between them, from the
// three inputs of the simulation (see README "How much would it save?"):
//   - a region → grid zone map, `gcp_region,zone` (contract/region_locations.h);
//   - an RTT matrix between regions, `sending_region,receiving_region,milliseconds`
//     (contract/rtt_matrix.h);
//   - an hourly carbon-intensity trace with one column per grid zone
//     (contract/intensity_trace.h).
//
// A site is a grid zone that hosts at least one region; regions sharing a zone
// are one site. The RTT from site a to site b is the smallest matrix value from
// a region of a to a region of b (sending → receiving, as measured); a pair
// with no value is "no measurement", never 0. A site to itself is
// kSiteSelfRttMs, the convention of the matrix's source study (Sukprasert et
// al., "On the Limitations of Carbon-Aware Temporal and Spatial Workload
// Shifting in the Cloud", EuroSys 2024; github.com/umassos/decarbonization-potential).
//
// A zone that the trace has no column for, or whose column is empty in some
// hour, cannot be simulated: its site is left out and listed in
// SiteTopology::skipped (the caller warns, naming them).
//
// Errors: kInvalidArgument when no site is left.
// Thread safety: immutable once built.
#ifndef CARBONROUTE_SIMULATOR_SIMULATION_SITES_H_
#define CARBONROUTE_SIMULATOR_SIMULATION_SITES_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "contract/intensity_trace.h"
#include "contract/rtt_matrix.h"

namespace carbonroute::simulator {

inline constexpr double kSiteSelfRttMs = 5.0;

struct SimulationSite {
  std::string zone;                  // grid zone code, e.g. "BE"
  std::vector<std::string> regions;  // the regions it hosts, ascending
  std::size_t trace_column = 0;      // IntensityTrace zone index
};

struct SkippedSite {
  std::string zone;
  std::vector<std::string> regions;
  std::string why;  // "not in the trace", "no data at 2022-03-01T04:00:00Z"
};

struct SiteTopology {
  std::vector<SimulationSite> sites;  // ascending by zone code; ids are positions
  std::vector<SkippedSite> skipped;   // ascending by zone code
  // sites × sites, row-major by (from, to), milliseconds; NaN: no measurement.
  std::vector<double> rtt_ms;

  std::size_t size() const { return sites.size(); }
  double RttMs(std::size_t from, std::size_t to) const { return rtt_ms[from * sites.size() + to]; }
  // The site of a zone code or a region name; nullopt if neither.
  std::optional<std::size_t> SiteOf(absl::string_view zone_or_region) const;
  // The skipped site of a zone code or region name, or nullptr.
  const SkippedSite* SkippedOf(absl::string_view zone_or_region) const;
};

absl::StatusOr<SiteTopology> BuildSiteTopology(
    const std::map<std::string, std::string, std::less<>>& region_zones,
    const std::vector<RttMatrixEntry>& matrix, const IntensityTrace& trace);

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_SIMULATION_SITES_H_
