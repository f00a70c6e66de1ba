#include "simulator/oracle_placer.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace carbonroute::simulator {
namespace {

// The oracle's transportation problem: each origin with work ships it to the
// sites its limit allows; a site's capacity is what its own unmovable work leaves.
struct OracleProblem {
  std::vector<int64_t> supply, capacity;
  std::vector<TransportArc> arcs;
  std::vector<std::size_t> origin_site;  // per supplying origin, its site
};

OracleProblem MakeProblem(const PlacementLimits& limits) {
  OracleProblem problem;
  const std::size_t n = limits.size();
  for (std::size_t s = 0; s < n; ++s) {
    const int kept = limits.origin[s] ? 0 : limits.load[s];  // a non-origin's work stays
    problem.capacity.push_back(kSiteCapacity - kept);
  }
  for (std::size_t o = 0; o < n; ++o) {
    if (!limits.origin[o] || limits.load[o] == 0) continue;
    const std::size_t index = problem.supply.size();
    problem.supply.push_back(limits.load[o]);
    problem.origin_site.push_back(o);
    for (std::size_t s = 0; s < n; ++s) {
      if (limits.Allowed(o, s)) problem.arcs.push_back({index, s});
    }
  }
  return problem;
}

}  // namespace

OraclePlacer::OraclePlacer(const PlacementLimits& limits) : limits_(limits) {
  OracleProblem problem = MakeProblem(limits);
  origin_site_ = std::move(problem.origin_site);
  network_ =
      std::make_unique<TransportNetwork>(problem.supply, problem.capacity, std::move(problem.arcs));
}

OraclePlacer::~OraclePlacer() = default;

absl::StatusOr<std::vector<int64_t>> OraclePlacer::Solve(const std::vector<double>& intensity) {
  std::vector<double> cost;
  cost.reserve(network_->arcs().size());
  for (const TransportArc& arc : network_->arcs()) cost.push_back(intensity[arc.destination]);
  absl::StatusOr<std::vector<int64_t>> flows = network_->Solve(cost);
  if (!flows.ok()) {  // keeping all work at home is always feasible: a bug
    return absl::InternalError(
        absl::StrCat("the oracle's flow problem: ", flows.status().message()));
  }
  return flows;
}

absl::StatusOr<std::vector<double>> OraclePlacer::CapacityPrices(
    const std::vector<double>& intensity) {
  CARBONROUTE_RETURN_IF_ERROR(Solve(intensity).status());
  return network_->CapacityPrices();
}

absl::StatusOr<Placement> OraclePlacer::Place(const std::vector<double>& intensity) {
  CARBONROUTE_ASSIGN_OR_RETURN(const std::vector<int64_t> flows, Solve(intensity));
  Placement placement = LocalPlacement(limits_);
  for (std::size_t o = 0; o < limits_.size(); ++o) {
    if (limits_.origin[o]) placement.at(o, o) = 0;
  }
  const std::vector<TransportArc>& arcs = network_->arcs();
  for (std::size_t i = 0; i < arcs.size(); ++i) {
    placement.at(origin_site_[arcs[i].origin], arcs[i].destination) += static_cast<int>(flows[i]);
  }
  return placement;
}

}  // namespace carbonroute::simulator
