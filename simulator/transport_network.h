// File: simulator/transport_network.h
//
// The transportation problem every carbonroute placement of divisible work
// solves (the simulator's oracle, simulator/oracle_placer.h; the routing
// weights, routing/route_flows.h): whole units of supply at origins, a
// capacity at each destination, the arcs allowed between them, a cost per
// unit on each arc; the flow of least total cost that ships every origin's
// supply, solved exactly as a minimum-cost flow with LEMON's NetworkSimplex
// (https://lemon.cs.elte.hu/pub/doc/1.3.1/a00276.html):
//
//   origin o ──(arc: cost c, at most supply[o])──▶ destination d ──(capacity[d])──▶ sink
//
// Supplies and capacities are whole units, so the optimal flow is integral (a
// network-flow basis is integral). Costs are rounded to 1/kCostScale (whole
// numbers: with floating-point costs the simplex can cycle on degenerate
// pivots).
//
// The graph is built once; Solve() only changes the costs.
// Thread safety: not thread-safe (one per thread).
#ifndef CARBONROUTE_SIMULATOR_TRANSPORT_NETWORK_H_
#define CARBONROUTE_SIMULATOR_TRANSPORT_NETWORK_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"

namespace carbonroute::simulator {

// The costs' resolution: 1/10,000 of their unit (gCO2eq/kWh for carbonroute).
inline constexpr double kCostScale = 10'000;

struct TransportArc {
  std::size_t origin = 0;
  std::size_t destination = 0;
};

class TransportNetwork {
 public:
  // `supply` per origin and `capacity` per destination, units ≥ 0; `arcs`
  // between them (indices in range; an origin may have several).
  TransportNetwork(const std::vector<int64_t>& supply, const std::vector<int64_t>& capacity,
                   std::vector<TransportArc> arcs);
  ~TransportNetwork();
  TransportNetwork(const TransportNetwork&) = delete;
  TransportNetwork& operator=(const TransportNetwork&) = delete;

  const std::vector<TransportArc>& arcs() const { return arcs_; }

  // The units on each arc (arcs() order) of a flow of least total cost, for
  // `cost` per unit on each arc (arcs() order, finite).
  // kFailedPrecondition when the arcs and capacities cannot carry every
  // origin's supply; kInvalidArgument when `cost` has the wrong size.
  absl::StatusOr<std::vector<int64_t>> Solve(const std::vector<double>& cost);

  // After a successful Solve: per destination, what one more unit of its
  // capacity would save, ≥ 0 (the dual value of its capacity; 0 for one with
  // room to spare): every unit of an optimal flow runs on an arc of least
  // cost + price among its origin's (complementary slackness; Ahuja, Magnanti
  // and Orlin, "Network Flows", 1993, §9.4).
  std::vector<double> CapacityPrices() const;

 private:
  struct Network;  // the LEMON graph and solver, kept out of this header
  std::vector<TransportArc> arcs_;
  std::unique_ptr<Network> network_;
};

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_TRANSPORT_NETWORK_H_
