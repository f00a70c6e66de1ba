#include "simulator/oracle_placer.h"

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <cmath>
#include <cstdint>
#include <utility>

namespace carbonroute::simulator {
namespace {

// Costs in 1/10,000 gCO2eq/kWh: whole numbers, as network simplex needs to
// terminate (with double costs, rounding makes it cycle on degenerate pivots).
constexpr double kCostScale = 10'000;

}  // namespace

struct OraclePlacer::Network {
  using Graph = lemon::SmartDigraph;
  using Solver = lemon::NetworkSimplex<Graph, int, int64_t>;

  Graph graph;
  Graph::ArcMap<int> upper{graph};
  Graph::ArcMap<int64_t> cost{graph};
  Graph::NodeMap<int> supply{graph};
  // The origin → site arcs, with their (origin, site).
  std::vector<std::pair<Graph::Arc, std::pair<std::size_t, std::size_t>>> moves;
  std::unique_ptr<Solver> solver;
};

OraclePlacer::OraclePlacer(const PlacementLimits& limits)
    : limits_(limits), network_(std::make_unique<Network>()) {
  Network& net = *network_;
  const std::size_t n = limits.size();
  std::vector<Network::Graph::Node> origins(n), sites(n);
  const Network::Graph::Node sink = net.graph.addNode();
  int demand = 0;
  for (std::size_t s = 0; s < n; ++s) {
    sites[s] = net.graph.addNode();
    net.supply[sites[s]] = 0;
    const int kept = limits.origin[s] ? 0 : limits.load[s];  // a non-origin's work stays
    const Network::Graph::Arc to_sink = net.graph.addArc(sites[s], sink);
    net.upper[to_sink] = kSiteCapacity - kept;
    net.cost[to_sink] = 0;
  }
  for (std::size_t o = 0; o < n; ++o) {
    if (!limits.origin[o] || limits.load[o] == 0) continue;
    origins[o] = net.graph.addNode();
    net.supply[origins[o]] = limits.load[o];
    demand += limits.load[o];
    for (std::size_t s = 0; s < n; ++s) {
      if (!limits.Allowed(o, s)) continue;
      const Network::Graph::Arc arc = net.graph.addArc(origins[o], sites[s]);
      net.upper[arc] = limits.load[o];
      net.cost[arc] = 0;
      net.moves.push_back({arc, {o, s}});
    }
  }
  net.supply[sink] = -demand;
  net.solver = std::make_unique<Network::Solver>(net.graph);
  net.solver->upperMap(net.upper).supplyMap(net.supply);
}

OraclePlacer::~OraclePlacer() = default;

absl::StatusOr<Placement> OraclePlacer::Place(const std::vector<double>& intensity) {
  Network& net = *network_;
  for (const auto& [arc, pair] : net.moves) {
    net.cost[arc] = std::llround(intensity[pair.second] * kCostScale);
  }
  if (const Network::Solver::ProblemType result = net.solver->costMap(net.cost).run();
      result != Network::Solver::OPTIMAL) {
    return absl::InternalError(result == Network::Solver::INFEASIBLE
                                   ? "the oracle's flow problem is infeasible"
                                   : "the oracle's flow problem is unbounded");
  }
  Placement placement = LocalPlacement(limits_);
  for (std::size_t o = 0; o < limits_.size(); ++o) {
    if (limits_.origin[o]) placement.at(o, o) = 0;
  }
  for (const auto& [arc, pair] : net.moves)
    placement.at(pair.first, pair.second) += net.solver->flow(arc);
  return placement;
}

}  // namespace carbonroute::simulator
