// File: simulator/oracle_placer.h
//
// The simulator's `oracle` policy: for one period's true mean intensities, the
// placement of minimum total carbon within the latency limit and capacities,
// solved exactly as the transportation problem of simulator/transport_network.h
// (a minimum-cost flow):
//
//   origin o ──(o may run at s; cost intensity[s])──▶ site s ──(capacity: free)──▶ sink
//
// supply load[o] at each origin; a site's capacity is kSiteCapacity minus the
// work of non-origins that stays there. Costs are gCO2eq/kWh rounded to
// 1/10,000, so the optimum is exact up to 0.00005 gCO2eq/kWh per unit.
// Keeping all work at home is always feasible, so a solution always exists.
// It is the lower bound of every other policy.
//
// The graph is built once per PlacementLimits; Place() only changes costs.
// Thread safety: not thread-safe (one per thread); borrows `limits`.
#ifndef CARBONROUTE_SIMULATOR_ORACLE_PLACER_H_
#define CARBONROUTE_SIMULATOR_ORACLE_PLACER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "simulator/site_placement.h"
#include "simulator/transport_network.h"

namespace carbonroute::simulator {

class OraclePlacer {
 public:
  explicit OraclePlacer(const PlacementLimits& limits);
  ~OraclePlacer();
  OraclePlacer(const OraclePlacer&) = delete;
  OraclePlacer& operator=(const OraclePlacer&) = delete;

  // `intensity`: per site, gCO2eq/kWh. kInternal if the solver reports the
  // problem infeasible or unbounded (it cannot be: a bug).
  absl::StatusOr<Placement> Place(const std::vector<double>& intensity);

  // The capacity prices of the same problem, per site, gCO2eq/kWh ≥ 0: the
  // dual values of the sites' capacities (the amount by which one more unit of
  // a site's capacity would lower the total, to 1/10,000 gCO2eq/kWh); 0 for a
  // site with room to spare. Every unit of an optimal placement runs at a site
  // of least intensity + price among those its limit allows (complementary
  // slackness; Ahuja, Magnanti and Orlin, "Network Flows", 1993, §9.4). The
  // carbonroute policy's capacity prices (carbonroute_placer.h), on its
  // forecast. Errors as Place().
  absl::StatusOr<std::vector<double>> CapacityPrices(const std::vector<double>& intensity);

 private:
  // The units on each of the network's arcs.
  absl::StatusOr<std::vector<int64_t>> Solve(const std::vector<double>& intensity);

  const PlacementLimits& limits_;
  std::vector<std::size_t> origin_site_;  // per origin of the network, its site
  std::unique_ptr<TransportNetwork> network_;
};

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_ORACLE_PLACER_H_
