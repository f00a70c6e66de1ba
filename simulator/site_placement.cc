#include "simulator/site_placement.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"

namespace carbonroute::simulator {

PlacementLimits MakePlacementLimits(const SiteTopology& topology, double max_rtt_ms,
                                    int idle_percent, const std::vector<bool>& origin) {
  PlacementLimits limits;
  limits.topology = &topology;
  limits.max_rtt_ms = max_rtt_ms;
  const int load = static_cast<int>(std::lround(kSiteCapacity * (100 - idle_percent) / 100.0));
  limits.load.assign(topology.size(), load);
  limits.origin = origin;
  return limits;
}

Placement LocalPlacement(const PlacementLimits& limits) {
  const std::size_t n = limits.size();
  Placement placement{n, std::vector<int>(n * n, 0)};
  for (std::size_t i = 0; i < n; ++i) placement.at(i, i) = limits.load[i];
  return placement;
}

std::vector<int> FreeCapacityAtHome(const PlacementLimits& limits) {
  std::vector<int> free(limits.size());
  for (std::size_t i = 0; i < free.size(); ++i) free[i] = kSiteCapacity - limits.load[i];
  return free;
}

int MoveWork(Placement& placement, std::vector<int>& free, std::size_t from, std::size_t to,
             int units) {
  const int moved = std::min({units, free[to], placement.at(from, from)});
  if (moved <= 0 || from == to) return 0;
  placement.at(from, from) -= moved;
  placement.at(from, to) += moved;
  free[to] -= moved;
  free[from] += moved;
  return moved;
}

Placement StaticPlacement(const PlacementLimits& limits, const std::vector<double>& mean) {
  const std::size_t n = limits.size();
  const std::vector<SimulationSite>& sites = limits.topology->sites;
  std::vector<std::size_t> by_mean(n);
  std::iota(by_mean.begin(), by_mean.end(), 0);
  std::sort(by_mean.begin(), by_mean.end(), [&](std::size_t a, std::size_t b) {
    return mean[a] != mean[b] ? mean[a] < mean[b] : sites[a].zone < sites[b].zone;
  });
  Placement placement = LocalPlacement(limits);
  std::vector<int> free = FreeCapacityAtHome(limits);
  for (std::size_t from : by_mean) {  // origins in ascending order of their mean
    if (!limits.origin[from]) continue;
    for (std::size_t to : by_mean) {  // targets, cleanest first
      if (to == from || placement.at(from, from) == 0) break;
      if (limits.Allowed(from, to)) MoveWork(placement, free, from, to, placement.at(from, from));
    }
  }
  return placement;
}

double OriginsCost(const PlacementLimits& limits, const Placement& placement,
                   const std::vector<double>& intensity) {
  double cost = 0;
  for (std::size_t from = 0; from < placement.sites; ++from) {
    if (!limits.origin[from]) continue;
    for (std::size_t to = 0; to < placement.sites; ++to) {
      if (const int units = placement.at(from, to); units != 0) cost += units * intensity[to];
    }
  }
  return cost;
}

double OriginsRttMs(const PlacementLimits& limits, const Placement& placement) {
  double total = 0;
  for (std::size_t from = 0; from < placement.sites; ++from) {
    if (!limits.origin[from]) continue;
    for (std::size_t to = 0; to < placement.sites; ++to) {
      if (const int units = placement.at(from, to); units != 0) {
        total += units * limits.topology->RttMs(from, to);
      }
    }
  }
  return total;
}

absl::Status CheckPlacement(const PlacementLimits& limits, const Placement& placement) {
  const std::size_t n = limits.size();
  const std::vector<SimulationSite>& sites = limits.topology->sites;
  if (placement.sites != n || placement.units.size() != n * n) {
    return absl::InternalError(absl::StrCat("placement over ", placement.sites, " sites, not ", n));
  }
  std::vector<int> used(n, 0);
  for (std::size_t from = 0; from < n; ++from) {
    int placed = 0;
    for (std::size_t to = 0; to < n; ++to) {
      const int units = placement.at(from, to);
      if (units < 0) {
        return absl::InternalError(
            absl::StrCat(sites[from].zone, " → ", sites[to].zone, ": ", units, " units"));
      }
      if (units > 0 && !limits.Allowed(from, to)) {
        return absl::InternalError(absl::StrCat(sites[from].zone, " → ", sites[to].zone,
                                                " is beyond ", limits.max_rtt_ms, " ms"));
      }
      if (units > 0 && to != from && !limits.origin[from]) {
        return absl::InternalError(absl::StrCat(sites[from].zone, " is not an origin but moved"));
      }
      placed += units;
      used[to] += units;
    }
    if (placed != limits.load[from]) {
      return absl::InternalError(
          absl::StrCat(sites[from].zone, ": ", placed, " units placed of ", limits.load[from]));
    }
  }
  for (std::size_t to = 0; to < n; ++to) {
    if (used[to] > kSiteCapacity) {
      return absl::InternalError(absl::StrCat(sites[to].zone, " runs ", used[to],
                                              " units, over its capacity of ", kSiteCapacity));
    }
  }
  return absl::OkStatus();
}

}  // namespace carbonroute::simulator
