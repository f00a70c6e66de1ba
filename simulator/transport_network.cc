#include "simulator/transport_network.h"

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace carbonroute::simulator {

struct TransportNetwork::Network {
  using Graph = lemon::SmartDigraph;
  using Solver = lemon::NetworkSimplex<Graph, int64_t, int64_t>;

  Graph graph;
  Graph::ArcMap<int64_t> upper{graph};
  Graph::ArcMap<int64_t> cost{graph};
  Graph::NodeMap<int64_t> supply{graph};
  std::vector<Graph::Arc> moves;          // per TransportArc
  std::vector<Graph::Node> destinations;  // per destination
  Graph::Node sink;
  std::unique_ptr<Solver> solver;
};

TransportNetwork::TransportNetwork(const std::vector<int64_t>& supply,
                                   const std::vector<int64_t>& capacity,
                                   std::vector<TransportArc> arcs)
    : arcs_(std::move(arcs)), network_(std::make_unique<Network>()) {
  Network& net = *network_;
  net.sink = net.graph.addNode();
  for (const int64_t room : capacity) {
    const Network::Graph::Node destination = net.graph.addNode();
    net.supply[destination] = 0;
    const Network::Graph::Arc to_sink = net.graph.addArc(destination, net.sink);
    net.upper[to_sink] = room;
    net.cost[to_sink] = 0;
    net.destinations.push_back(destination);
  }
  std::vector<Network::Graph::Node> origins;
  int64_t demand = 0;
  for (const int64_t units : supply) {
    origins.push_back(net.graph.addNode());
    net.supply[origins.back()] = units;
    demand += units;
  }
  for (const TransportArc& arc : arcs_) {
    const Network::Graph::Arc move =
        net.graph.addArc(origins[arc.origin], net.destinations[arc.destination]);
    net.upper[move] = supply[arc.origin];
    net.cost[move] = 0;
    net.moves.push_back(move);
  }
  net.supply[net.sink] = -demand;
  net.solver = std::make_unique<Network::Solver>(net.graph);
  net.solver->upperMap(net.upper).supplyMap(net.supply);
}

TransportNetwork::~TransportNetwork() = default;

absl::StatusOr<std::vector<int64_t>> TransportNetwork::Solve(const std::vector<double>& cost) {
  if (cost.size() != arcs_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("transport costs: ", cost.size(), " for ", arcs_.size(), " arcs"));
  }
  Network& net = *network_;
  for (std::size_t i = 0; i < cost.size(); ++i) {
    net.cost[net.moves[i]] = std::llround(cost[i] * kCostScale);
  }
  const Network::Solver::ProblemType result = net.solver->costMap(net.cost).run();
  if (result == Network::Solver::INFEASIBLE) {
    return absl::FailedPreconditionError(
        "the arcs and capacities cannot carry every origin's supply");
  }
  if (result != Network::Solver::OPTIMAL) {  // unbounded: no negative cycle can exist here
    return absl::InternalError("the transport problem is unbounded");
  }
  std::vector<int64_t> flows(arcs_.size());
  for (std::size_t i = 0; i < flows.size(); ++i) flows[i] = net.solver->flow(net.moves[i]);
  return flows;
}

std::vector<double> TransportNetwork::CapacityPrices() const {
  const Network& net = *network_;
  // LEMON's optimality conditions: the reduced cost c(uv) + π(u) − π(v) of an
  // arc is ≤ 0 when it carries flow at its upper bound. The destination → sink
  // arc costs 0, so a full destination has π(d) − π(sink) ≤ 0: its price is
  // π(sink) − π(d), the cost a unit more of its capacity would save.
  std::vector<double> prices(net.destinations.size());
  const int64_t sink = net.solver->potential(net.sink);
  for (std::size_t d = 0; d < prices.size(); ++d) {
    prices[d] = static_cast<double>(
                    std::max<int64_t>(0, sink - net.solver->potential(net.destinations[d]))) /
                kCostScale;
  }
  return prices;
}

}  // namespace carbonroute::simulator
