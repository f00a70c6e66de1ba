#include "routing/route_flows.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "simulator/transport_network.h"

namespace carbonroute::routing {
namespace {

absl::Status CheckAmount(double value, absl::string_view field, absl::string_view locality) {
  if (!std::isfinite(value) || value < 0) {
    return absl::InvalidArgumentError(absl::StrCat(field, " of \"", locality,
                                                   "\": expected a finite number ≥ 0, got ",
                                                   absl::StrFormat("%g", value)));
  }
  return absl::OkStatus();
}

absl::Status CheckInput(const std::vector<RouteOrigin>& origins,
                        const std::vector<RouteDestination>& destinations,
                        const RouteLimits& limits) {
  std::set<std::string> seen;
  for (const RouteOrigin& origin : origins) {
    if (origin.locality.empty()) return absl::InvalidArgumentError("origin: an empty locality");
    if (!seen.insert(origin.locality).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("origin \"", origin.locality, "\" is given twice"));
    }
    if (absl::Status checked = CheckAmount(origin.demand, "demand", origin.locality);
        !checked.ok()) {
      return checked;
    }
  }
  seen.clear();
  for (const RouteDestination& destination : destinations) {
    if (destination.locality.empty()) {
      return absl::InvalidArgumentError("destination: an empty locality");
    }
    if (!seen.insert(destination.locality).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("destination \"", destination.locality, "\" is given twice"));
    }
    if (absl::Status checked = CheckAmount(destination.capacity, "capacity", destination.locality);
        !checked.ok()) {
      return checked;
    }
    if (destination.grams_per_kwh) {
      if (absl::Status checked =
              CheckAmount(*destination.grams_per_kwh, "intensity", destination.locality);
          !checked.ok()) {
        return checked;
      }
    }
  }
  if (!std::isfinite(limits.carbon_tolerance) || limits.carbon_tolerance < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "carbon tolerance: expected a finite number ≥ 0, got %g", limits.carbon_tolerance));
  }
  if (limits.max_rtt && *limits.max_rtt < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("maxRtt: expected ≥ 0, got ", absl::FormatDuration(*limits.max_rtt)));
  }
  return absl::OkStatus();
}

std::string Ms(absl::Duration d) {
  return absl::StrFormat("%.0f ms", absl::ToDoubleMilliseconds(d));
}

// What one origin may do with one destination, and why not when it may not.
struct Option {
  bool allowed = false;
  std::optional<absl::Duration> rtt;
  std::string refused;  // why not allowed
};

}  // namespace

absl::StatusOr<std::vector<RouteRow>> RouteFlows(std::vector<RouteOrigin> origins,
                                                 std::vector<RouteDestination> destinations,
                                                 const RouteLimits& limits, const RttLookup& rtt) {
  if (absl::Status checked = CheckInput(origins, destinations, limits); !checked.ok()) {
    return checked;
  }
  // In name order: the same input in any order is the same problem, solved the same way.
  std::sort(origins.begin(), origins.end(),
            [](const RouteOrigin& a, const RouteOrigin& b) { return a.locality < b.locality; });
  std::sort(
      destinations.begin(), destinations.end(),
      [](const RouteDestination& a, const RouteDestination& b) { return a.locality < b.locality; });
  const std::size_t n = destinations.size();
  // Each origin's options, and the cleanest intensity it may reach.
  std::vector<std::vector<Option>> options(origins.size(), std::vector<Option>(n));
  std::vector<std::optional<double>> cleanest(origins.size());
  double total_demand = 0;
  std::vector<bool> supplied(origins.size(), false);
  for (std::size_t o = 0; o < origins.size(); ++o) {
    const std::string& from = origins[o].locality;
    std::optional<std::size_t> own;
    for (std::size_t d = 0; d < n; ++d) {
      if (destinations[d].locality == from) own = d;
    }
    const bool own_unknown = own && !destinations[*own].grams_per_kwh;
    for (std::size_t d = 0; d < n; ++d) {
      Option& option = options[o][d];
      const RouteDestination& to = destinations[d];
      option.rtt = rtt(from, to.locality);
      const bool home = own && d == *own;
      if (home) {
        // keeping traffic where it is is always allowed
      } else if (own_unknown) {
        option.refused = "the origin has no current reading: its traffic stays local";
      } else if (!to.grams_per_kwh) {
        option.refused = "no current reading";
      } else if (!option.rtt) {
        option.refused = absl::StrCat("no RTT measured from ", from);
      } else if (limits.max_rtt && *option.rtt > *limits.max_rtt) {
        option.refused =
            absl::StrCat("over maxRttMs (", Ms(*option.rtt), " > ", Ms(*limits.max_rtt), ")");
      }
      option.allowed = option.refused.empty();
      if (option.allowed && to.grams_per_kwh) {
        cleanest[o] = std::min(cleanest[o].value_or(INFINITY), *to.grams_per_kwh);
      }
      supplied[o] = supplied[o] || option.allowed;
    }
    if (supplied[o]) total_demand += origins[o].demand;
  }

  // The network: each destination twice, within its capacity and beyond it.
  std::vector<int64_t> supply(origins.size(), 0);
  std::vector<int64_t> capacity(2 * n, kFlowUnits);
  std::vector<simulator::TransportArc> arcs;
  std::vector<double> cost;
  if (total_demand > 0) {
    for (std::size_t o = 0; o < origins.size(); ++o) {
      if (supplied[o]) supply[o] = std::llround(origins[o].demand / total_demand * kFlowUnits);
    }
    for (std::size_t d = 0; d < n; ++d) {
      capacity[d] = static_cast<int64_t>(std::min<double>(
          kFlowUnits,
          std::floor(destinations[d].capacity / total_demand * static_cast<double>(kFlowUnits))));
    }
  }
  for (std::size_t o = 0; o < origins.size(); ++o) {
    if (supply[o] == 0) continue;
    const double band = cleanest[o].value_or(0) + limits.carbon_tolerance;
    for (std::size_t d = 0; d < n; ++d) {
      const Option& option = options[o][d];
      if (!option.allowed) continue;
      const double carbon = std::max(destinations[d].grams_per_kwh.value_or(band), band);
      // Traffic that stays in its own locality pays no RTT: between equally clean
      // places, each keeps its own rather than two trading theirs.
      const bool home = destinations[d].locality == origins[o].locality;
      const double latency =
          option.rtt && !home ? absl::ToDoubleMilliseconds(*option.rtt) / simulator::kCostScale : 0;
      arcs.push_back({o, d});
      cost.push_back(carbon + latency);
      arcs.push_back({o, n + d});
      cost.push_back(carbon + latency + kOverflowCost);
    }
  }
  std::vector<int64_t> flows(arcs.size(), 0);
  if (!arcs.empty()) {
    simulator::TransportNetwork network(supply, capacity, arcs);
    absl::StatusOr<std::vector<int64_t>> solved = network.Solve(cost);
    if (!solved.ok()) return solved.status();  // cannot be: every supplied origin has an arc
    flows = *std::move(solved);
  }

  // Units per (origin, destination), within and beyond capacity; each destination's load.
  std::map<std::pair<std::size_t, std::size_t>, std::pair<int64_t, int64_t>> units;
  std::vector<int64_t> load(n, 0);
  for (std::size_t i = 0; i < arcs.size(); ++i) {
    const bool over = arcs[i].destination >= n;
    const std::size_t d = over ? arcs[i].destination - n : arcs[i].destination;
    auto& [within, beyond] = units[{arcs[i].origin, d}];
    (over ? beyond : within) += flows[i];
    if (!over) load[d] += flows[i];
  }

  std::vector<RouteRow> rows;
  for (std::size_t o = 0; o < origins.size(); ++o) {
    RouteRow row{.origin = origins[o].locality, .demand = origins[o].demand};
    const double band = cleanest[o].value_or(0) + limits.carbon_tolerance;
    for (std::size_t d = 0; d < n; ++d) {
      const Option& option = options[o][d];
      const RouteDestination& to = destinations[d];
      RouteFlow flow{.destination = to.locality,
                     .grams_per_kwh = to.grams_per_kwh,
                     .rtt = option.rtt,
                     .allowed = option.allowed};
      const auto [within, beyond] = units[{o, d}];
      if (supply[o] > 0) {
        flow.share = static_cast<double>(within + beyond) / static_cast<double>(supply[o]);
      }
      if (!option.allowed) {
        flow.reason = option.refused;
      } else if (supply[o] == 0) {
        flow.reason = "the origin sends no traffic";
      } else if (beyond > 0) {
        flow.reason = "beyond its capacity: nothing else within the limits had room";
      } else if (within > 0 && !to.grams_per_kwh) {
        flow.reason = "kept local: no current reading here";
      } else if (within > 0) {
        flow.reason = *to.grams_per_kwh <= band
                          ? (limits.carbon_tolerance > 0 ? "within the tolerance of the cleanest"
                                                         : "the cleanest within the limits")
                          : "the cleanest with room left";
      } else if (load[d] >= capacity[d]) {
        flow.reason = "full: its capacity went to other traffic";
      } else {
        flow.reason = *to.grams_per_kwh <= band ? "as clean, but farther" : "dirtier";
      }
      row.flows.push_back(std::move(flow));
    }
    std::sort(row.flows.begin(), row.flows.end(), [](const RouteFlow& a, const RouteFlow& b) {
      if (a.share != b.share) return a.share > b.share;
      const absl::Duration ra = a.rtt.value_or(absl::InfiniteDuration());
      const absl::Duration rb = b.rtt.value_or(absl::InfiniteDuration());
      if (ra != rb) return ra < rb;
      return a.destination < b.destination;
    });
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace carbonroute::routing
