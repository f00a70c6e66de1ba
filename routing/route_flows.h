// File: routing/route_flows.h
//
// Where each origin locality's requests should go: the carbon-weighted split
// of a Service's traffic over the localities that serve it, within a latency
// limit and the destinations' capacities (docs/routing.md). The same model
// and code as the simulator's oracle (simulator/transport_network.h): a
// transportation problem solved as a minimum-cost flow,
//
//   origin o ──(allowed; cost below)──▶ destination d ──(capacity[d])──▶ sink
//
// with each origin's demand as supply. Demand and capacity are in any one unit
// (ready endpoints, requests per second); they are scaled so the demands sum to
// kFlowUnits whole units (a share's resolution: 1/kFlowUnits of the traffic).
//
// An origin may send to a destination when
//   - it is the origin's own locality (keeping traffic where it is is always
//     allowed, as the mesh's default), or
//   - the RTT from the origin is known and ≤ max_rtt (an RTT that cannot be
//     verified is not met) and the destination has a current reading (missing
//     data never moves traffic toward the unknown).
// An origin whose own locality is a destination without a current reading
// keeps all its traffic (a move away cannot be priced against it).
//
// The cost of a unit, the scoring's tolerance rule (placement/scoring.h rule 3,
// docs/architecture.md "Scoring"): with e_min the cleanest intensity the origin
// may reach and τ the tolerance, a destination costs max(e, e_min + τ) + the RTT
// in ms / kCostScale (0 for the origin's own locality): every destination
// within τ of the cleanest costs the same carbon and the nearer one wins, the
// origin's own first; outside the band carbon decides, the RTT only breaks
// ties. A destination's capacity can be exceeded only at kOverflowCost a
// unit more (an overflow arc beside each allowed arc), so the problem is
// always feasible and the capacities are honoured whenever they can be.
//
// The result per origin is its flows per destination, each with the reason it
// got what it got; PercentWeights (routing/locality_weights.h) turns a row into
// Istio's integer weights. The same input always gives the same flows.
//
// Errors: kInvalidArgument naming the field and the value for a negative or
// non-finite demand, capacity, intensity, tolerance or limit, an empty or
// duplicate locality.
// Thread safety: pure function.
#ifndef CARBONROUTE_ROUTING_ROUTE_FLOWS_H_
#define CARBONROUTE_ROUTING_ROUTE_FLOWS_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace carbonroute::routing {

// The resolution of the flows: the demands sum to this many units.
inline constexpr int64_t kFlowUnits = 10'000;
// What a unit over a destination's capacity costs beyond its carbon, gCO2eq/kWh.
inline constexpr double kOverflowCost = 100'000;

struct RouteOrigin {
  std::string locality;  // Istio's form: "region/*" or "region/zone/*"
  double demand = 0;     // ≥ 0
};

struct RouteDestination {
  std::string locality;
  double capacity = 0;                  // ≥ 0, the demand's unit
  std::optional<double> grams_per_kwh;  // the current reading; absent: none
};

struct RouteLimits {
  std::optional<absl::Duration> max_rtt;  // absent: no limit
  double carbon_tolerance = 0;            // τ, gCO2eq/kWh, ≥ 0
};

// The RTT from an origin locality to a destination locality; absent when
// nothing measured or declared it.
using RttLookup =
    std::function<std::optional<absl::Duration>(const std::string& from, const std::string& to)>;

// What one destination gets from one origin.
struct RouteFlow {
  std::string destination;
  double share = 0;  // of the origin's demand, 0–1
  std::optional<double> grams_per_kwh;
  std::optional<absl::Duration> rtt;  // from the origin; absent for its own locality unless known
  std::string reason;                 // "cleanest within the limits", "over maxRttMs (82 ms)", ...
  bool allowed = false;               // the origin may send here (within its limit, with a reading)
};

struct RouteRow {
  std::string origin;  // rows in origin name order
  double demand = 0;
  std::vector<RouteFlow> flows;  // every destination, by share descending, then RTT, then name
};

absl::StatusOr<std::vector<RouteRow>> RouteFlows(std::vector<RouteOrigin> origins,
                                                 std::vector<RouteDestination> destinations,
                                                 const RouteLimits& limits, const RttLookup& rtt);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_ROUTE_FLOWS_H_
