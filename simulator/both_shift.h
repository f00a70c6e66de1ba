// File: simulator/both_shift.h
//
// `simulate --shift both`: waiting and moving together. The job model is the
// temporal one (simulator/temporal_shift.h: a job of J hours arrives at every
// hour of the year at every site; with S hours of slack it runs in J hours of
// [arrival, arrival + S + J), consecutive unless interruptible), and in each
// of its hours it may also run at any site within the latency limit of its
// origin (simulator/site_placement.h's rule: itself, or RTT ≤ max_rtt_ms),
// re-placed every hour as the spatial model re-places work.
//
// Jobs are marginal, as in Sukprasert et al. (EuroSys 2024, §3): one job is
// small against a site's idle capacity, so it fits wherever the spatial model
// leaves room, and does not change any site's intensity. A job that runs in
// hour h then draws the reachable intensity
//     reachable[o][h] = min over sites s within the limit of o of intensity[s][h]
// (carbonroute knows every site's current reading, so it runs each hour it
// has chosen at the cleanest site it may reach). So `now` runs at arrival at
// home (the baseline of --shift time), and carbonroute and the oracle wait on
// the reachable series of their origin (SimulateTemporal's `reachable`):
// carbonroute with the forecast applied to that series (persistence: the
// reachable series of the day before; noisy:P: it × (1 + ε)), the oracle in
// hindsight. The oracle stays the exact lower bound of every job.
//
// Not modelled: capacity that binds (many jobs at once in one clean site,
// which the spatial model's min-cost flow prices); the spatial table of
// `--shift space` answers that for work that moves but cannot wait.
//
// Origins: the topology's sites (zones that host a region and have data in
// the trace); groups as in --shift time, by zone code.
// Errors: kInvalidArgument for an empty or negative limit list (naming the
// value) and SimulateTemporal's; kInternal as SimulateTemporal.
// Thread safety: may be called concurrently.
#ifndef CARBONROUTE_SIMULATOR_BOTH_SHIFT_H_
#define CARBONROUTE_SIMULATOR_BOTH_SHIFT_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "contract/intensity_trace.h"
#include "simulator/simulation_sites.h"
#include "simulator/temporal_simulation.h"

namespace carbonroute::simulator {

// The sites' own columns of `trace` (home) and their reachable series within
// `max_rtt_ms`, both with one zone per site in the topology's order.
struct ReachableTraces {
  IntensityTrace home;
  IntensityTrace reachable;
};
absl::StatusOr<ReachableTraces> MakeReachableTraces(const SiteTopology& topology,
                                                    const IntensityTrace& trace, double max_rtt_ms);

// SimulateTemporal over each limit's reachable traces; rows ordered by limit
// (as given), then as SimulateTemporal orders them, each with its max_rtt_ms.
absl::StatusOr<std::vector<TemporalRow>> SimulateBoth(
    const SiteTopology& topology, const IntensityTrace& trace,
    const std::map<std::string, std::set<std::string>>& zone_groups, const TemporalOptions& options,
    const std::vector<double>& max_rtt_ms);

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_BOTH_SHIFT_H_
