// File: simulator/site_placement.h
//
// Where the simulator's work runs in one period, and the two policies that
// need no per-period input: `local` and `static` (README "How much would it
// save?"; model in simulator/simulation_sites.h).
//
// Units: work and capacity in whole units; every site has kSiteCapacity and
// its own constant load. Work originates at every site; only an origin's
// work may move (the others' stays home and only takes capacity). Work of
// origin o may run at site s when s == o or RttMs(o, s) ≤ max_rtt_ms.
//
// Thread safety: plain values; PlacementLimits borrows its topology, which
// must outlive it.
#ifndef CARBONROUTE_SIMULATOR_SITE_PLACEMENT_H_
#define CARBONROUTE_SIMULATOR_SITE_PLACEMENT_H_

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "simulator/simulation_sites.h"

namespace carbonroute::simulator {

inline constexpr int kSiteCapacity = 100;

// The fixed part of one simulated configuration (one latency limit, one idle level).
struct PlacementLimits {
  const SiteTopology* topology = nullptr;
  double max_rtt_ms = 0;     // milliseconds, as the dense RTT array (simulator.h SimulationOptions)
  std::vector<int> load;     // per site: units of its own work
  std::vector<bool> origin;  // per site: whether its work may move

  std::size_t size() const { return load.size(); }
  bool Allowed(std::size_t from, std::size_t to) const {
    return from == to || topology->RttMs(from, to) <= max_rtt_ms;  // NaN: no measurement, false
  }
};

// load = round(kSiteCapacity · (1 − idle_percent / 100)) at every site.
PlacementLimits MakePlacementLimits(const SiteTopology& topology, double max_rtt_ms,
                                    int idle_percent, const std::vector<bool>& origin);

// units[from * n + to]: units of site `from`'s work running at site `to`.
struct Placement {
  std::size_t sites = 0;
  std::vector<int> units;

  int& at(std::size_t from, std::size_t to) { return units[from * sites + to]; }
  int at(std::size_t from, std::size_t to) const { return units[from * sites + to]; }
};

// Everyone's work at home.
Placement LocalPlacement(const PlacementLimits& limits);

// The free capacity per site when every site runs its own work.
std::vector<int> FreeCapacityAtHome(const PlacementLimits& limits);

// Moves up to `units` of `from`'s work from home to `to`, as far as `free`
// allows; frees the same at home. Returns the units moved.
int MoveWork(Placement& placement, std::vector<int>& free, std::size_t from, std::size_t to,
             int units);

// The static policy of Sukprasert et al. (EuroSys 2024): one plan from
// each site's mean intensity over the whole trace. Origins in ascending order
// of their mean (ties: zone code); each fills the cleanest allowed sites (by
// mean, itself included) that have free capacity, in that order, and keeps
// the rest once it reaches itself.
Placement StaticPlacement(const PlacementLimits& limits, const std::vector<double>& mean);

// Σ over origins' work of units × intensity of the site it runs at
// (unit-gCO2eq/kWh; divide by the origins' units for the mean).
double OriginsCost(const PlacementLimits& limits, const Placement& placement,
                   const std::vector<double>& intensity);
// Σ over the origins' units of the RTT from their origin to the site that runs
// them, ms (a site to itself: the topology's self RTT): the latency the
// placement pays, to divide by the origins' units for the mean.
double OriginsRttMs(const PlacementLimits& limits, const Placement& placement);

// Checks a placement against the model: every site's work is all placed, a
// non-origin's at home, only at allowed sites, and no site over capacity.
// kInternal naming the site and the numbers otherwise (a simulator bug).
absl::Status CheckPlacement(const PlacementLimits& limits, const Placement& placement);

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_SITE_PLACEMENT_H_
