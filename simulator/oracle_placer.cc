#include "simulator/oracle_placer.h"

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "base/status_macros.h"

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
  std::vector<Graph::Node> sites;  // per site
  Graph::Node sink;
  std::unique_ptr<Solver> solver;
};

OraclePlacer::OraclePlacer(const PlacementLimits& limits)
    : limits_(limits), network_(std::make_unique<Network>()) {
  Network& net = *network_;
  const std::size_t n = limits.size();
  std::vector<Network::Graph::Node> origins(n);
  std::vector<Network::Graph::Node>& sites = net.sites;
  sites.resize(n);
  const Network::Graph::Node sink = net.sink = net.graph.addNode();
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

absl::Status OraclePlacer::Solve(const std::vector<double>& intensity) {
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
  return absl::OkStatus();
}

absl::StatusOr<std::vector<double>> OraclePlacer::CapacityPrices(
    const std::vector<double>& intensity) {
  CARBONROUTE_RETURN_IF_ERROR(Solve(intensity));
  const Network& net = *network_;
  // LEMON's optimality conditions: the reduced cost c(uv) + π(u) − π(v) of an
  // arc is ≤ 0 when it carries flow at its upper bound. The site → sink arc
  // costs 0, so a full site has π(site) − π(sink) ≤ 0: its price is
  // π(sink) − π(site), the cost a unit more of its capacity would save.
  std::vector<double> prices(limits_.size());
  const int64_t sink = net.solver->potential(net.sink);
  for (std::size_t s = 0; s < prices.size(); ++s) {
    prices[s] =
        static_cast<double>(std::max<int64_t>(0, sink - net.solver->potential(net.sites[s]))) /
        kCostScale;
  }
  return prices;
}

absl::StatusOr<Placement> OraclePlacer::Place(const std::vector<double>& intensity) {
  CARBONROUTE_RETURN_IF_ERROR(Solve(intensity));
  const Network& net = *network_;
  Placement placement = LocalPlacement(limits_);
  for (std::size_t o = 0; o < limits_.size(); ++o) {
    if (limits_.origin[o]) placement.at(o, o) = 0;
  }
  for (const auto& [arc, pair] : net.moves)
    placement.at(pair.first, pair.second) += net.solver->flow(arc);
  return placement;
}

}  // namespace carbonroute::simulator
