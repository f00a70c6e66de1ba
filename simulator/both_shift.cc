#include "simulator/both_shift.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace carbonroute::simulator {

absl::StatusOr<ReachableTraces> MakeReachableTraces(const SiteTopology& topology,
                                                    const IntensityTrace& trace,
                                                    double max_rtt_ms) {
  if (!(max_rtt_ms >= 0) || !std::isfinite(max_rtt_ms)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_rtt_ms: ", max_rtt_ms, " is not a finite number ≥ 0"));
  }
  const std::size_t n = topology.size();
  const std::size_t hours = trace.hours();
  std::vector<std::string> zones;
  std::vector<std::vector<double>> home(n, std::vector<double>(hours));
  for (std::size_t s = 0; s < n; ++s) {
    zones.push_back(topology.sites[s].zone);
    for (std::size_t h = 0; h < hours; ++h) {
      home[s][h] = trace.Value(topology.sites[s].trace_column, h).value_or(NAN);
    }
  }
  std::vector<std::vector<double>> reachable = home;
  for (std::size_t o = 0; o < n; ++o) {
    for (std::size_t s = 0; s < n; ++s) {
      // site_placement.h's rule; NaN (no measurement) is not within any limit.
      if (s == o || !(topology.RttMs(o, s) <= max_rtt_ms)) continue;
      for (std::size_t h = 0; h < hours; ++h) {
        reachable[o][h] = std::min(reachable[o][h], home[s][h]);
      }
    }
  }
  absl::StatusOr<IntensityTrace> home_trace =
      IntensityTrace::FromColumns(trace.year(), zones, home);
  if (!home_trace.ok()) return home_trace.status();
  absl::StatusOr<IntensityTrace> reachable_trace =
      IntensityTrace::FromColumns(trace.year(), std::move(zones), reachable);
  if (!reachable_trace.ok()) return reachable_trace.status();
  return ReachableTraces{*std::move(home_trace), *std::move(reachable_trace)};
}

absl::StatusOr<std::vector<TemporalRow>> SimulateBoth(
    const SiteTopology& topology, const IntensityTrace& trace,
    const std::map<std::string, std::set<std::string>>& zone_groups, const TemporalOptions& options,
    const std::vector<double>& max_rtt_ms) {
  if (max_rtt_ms.empty()) return absl::InvalidArgumentError("max_rtt_ms must not be empty");
  std::vector<TemporalRow> rows;
  for (const double limit : max_rtt_ms) {
    absl::StatusOr<ReachableTraces> traces = MakeReachableTraces(topology, trace, limit);
    if (!traces.ok()) return traces.status();
    absl::StatusOr<std::vector<TemporalRow>> limit_rows =
        SimulateTemporal(traces->home, zone_groups, options, &traces->reachable);
    if (!limit_rows.ok()) return limit_rows.status();
    for (TemporalRow& row : *limit_rows) {
      row.max_rtt_ms = limit;
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace carbonroute::simulator
