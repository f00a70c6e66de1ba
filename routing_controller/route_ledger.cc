#include "routing_controller/route_ledger.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"

namespace carbonroute::routing {
namespace {

constexpr char kRouteController[] = "route";

struct PricedShares {
  double grams_per_kwh = 0;
  std::optional<absl::Duration> origin_rtt;
};

// `shares` of one origin priced at the destinations' readings; nullopt when a
// destination with a share has none.
std::optional<PricedShares> PriceShares(const std::map<std::string, double>& shares,
                                        const std::map<std::string, double>& intensity,
                                        const RouteRow* row) {
  PricedShares priced;
  absl::Duration rtt;
  bool every_rtt = row != nullptr;
  if (absl::c_none_of(shares, [](const auto& entry) { return entry.second > 0; })) {
    return std::nullopt;  // nowhere to run: not priced at 0
  }
  for (const auto& [destination, share] : shares) {
    if (share <= 0) continue;
    const auto reading = intensity.find(destination);
    if (reading == intensity.end()) return std::nullopt;
    priced.grams_per_kwh += share * reading->second;
    const RouteFlow* flow = nullptr;
    if (row != nullptr) {
      const std::string& wanted = destination;  // (clang: no capture of a structured binding)
      const auto it = absl::c_find_if(row->flows, [&wanted](const RouteFlow& candidate) {
        return candidate.destination == wanted;
      });
      if (it != row->flows.end()) flow = &*it;
    }
    if (flow != nullptr && flow->rtt) {
      rtt += share * *flow->rtt;
    } else {
      every_rtt = false;
    }
  }
  if (every_rtt) priced.origin_rtt = rtt;
  return priced;
}

}  // namespace

OriginShares SharesOfRows(const std::vector<DistributeRow>& rows) {
  OriginShares shares;
  for (const DistributeRow& row : rows) {
    for (const auto& [locality, weight] : row.to) {
      if (weight > 0) shares[row.from][locality] += static_cast<double>(weight) / 100;
    }
  }
  return shares;
}

OriginShares WithMeshDefault(OriginShares shares, const std::vector<std::string>& origins,
                             const std::map<std::string, double>& endpoints) {
  double total = 0;
  for (const auto& [locality, count] : endpoints) total += count;
  for (const std::string& origin : origins) {
    if (shares.contains(origin)) continue;
    std::map<std::string, double>& row = shares[origin];
    const auto own = endpoints.find(origin);
    if (own != endpoints.end() && own->second > 0) {
      row[origin] = 1;
      continue;
    }
    for (const auto& [locality, count] : endpoints) {
      if (total > 0 && count > 0) row[locality] = count / total;
    }
  }
  return shares;
}

std::map<std::string, double> BackendLocalityShares(const std::vector<Backend>& backends,
                                                    const BackendLocalities& localities) {
  // A backend without endpoints serves nothing: the others share its weight.
  auto endpoints_of = [&localities](const Backend& backend) {
    double endpoints = 0;
    const auto where = localities.find(backend.Key());
    if (where == localities.end()) return endpoints;
    for (const auto& [locality, count] : where->second) endpoints += count;
    return endpoints;
  };
  double total = 0;
  for (const Backend& backend : backends) {
    if (backend.weight > 0 && endpoints_of(backend) > 0)
      total += static_cast<double>(backend.weight);
  }
  std::map<std::string, double> shares;
  if (total <= 0) return shares;
  for (const Backend& backend : backends) {
    const double endpoints = endpoints_of(backend);
    if (backend.weight <= 0 || endpoints <= 0) continue;
    for (const auto& [locality, count] : localities.at(backend.Key())) {
      shares[locality] += static_cast<double>(backend.weight) / total * count / endpoints;
    }
  }
  return shares;
}

RouteLedger::RouteLedger(ledger::Ledger& ledger, ledger::LedgerMode mode,
                         absl::Duration longest_interval)
    : ledger_(ledger), mode_(mode), intervals_(longest_interval) {}

void RouteLedger::Book(const RouteBooking& booking, absl::Time now) {
  if ((!booking.joules_per_request && !meter_) || booking.plan == nullptr) return;
  const RoutePlan& plan = *booking.plan;
  std::map<std::string, double> intensity;  // destination → its reading
  for (const RouteRow& row : plan.rows) {
    for (const RouteFlow& flow : row.flows) {
      if (flow.grams_per_kwh) intensity[flow.destination] = *flow.grams_per_kwh;
    }
  }
  // One emissions type for every destination priced; the first one's when they agree.
  std::optional<EmissionsType> type;
  bool mixed = false;
  for (const OriginShares* shares : {&booking.chosen, &booking.counterfactual}) {
    for (const auto& [origin, row] : *shares) {
      for (const auto& [destination, share] : row) {
        const auto it = plan.emissions_types.find(destination);
        if (share <= 0 || it == plan.emissions_types.end()) continue;
        if (type && *type != it->second) mixed = true;
        if (!type) type = it->second;
      }
    }
  }
  const EmissionsType emissions_type = type.value_or(EmissionsType::kAverage);
  const ledger::LedgerKey key{.controller = kRouteController,
                              .namespace_name = booking.namespace_name,
                              .mode = mode_,
                              .emissions_type = emissions_type};
  ledger_.Decided(key, booking.moved ? ledger::kOutcomeMoved : ledger::kOutcomeKept);

  const std::optional<ledger::ClosedInterval> closed = intervals_.Close(booking.key, now);
  if (!closed) return;
  const absl::Duration interval = closed->length;
  auto skip = [&](absl::string_view reason) {
    ledger_.Skipped(kRouteController, emissions_type, reason);
  };
  if (closed->gap) return skip(ledger::kGap);
  if (!booking.requests_per_second) return skip(ledger::kUnknownEnergy);
  if (mixed) return skip(ledger::kMixedEmissionsTypes);
  // Without joulesPerRequest: the Pods' measured energy over the interval,
  // shared over the origins by their requests.
  std::vector<ledger::PodEnergy> measured;
  double requests = 0;
  if (!booking.joules_per_request) {
    for (const auto& [namespace_name, pods] : booking.pods) {
      absl::StatusOr<std::vector<ledger::PodEnergy>> energy =
          meter_(namespace_name, ledger::NamedPods(pods), now - interval, now);
      if (!energy.ok()) return skip(ledger::kUnknownEnergy);
      ledger::AddBySource(measured, *energy);
    }
    for (const auto& [origin, rate] : *booking.requests_per_second) requests += std::max(rate, 0.0);
    if (measured.empty() || requests <= 0) return skip(ledger::kUnknownEnergy);
  }
  for (const auto& [origin, rate] : *booking.requests_per_second) {
    if (rate <= 0) continue;
    const auto chosen_row = booking.chosen.find(origin);
    const auto counterfactual_row = booking.counterfactual.find(origin);
    const std::string& from = origin;  // (clang: no capture of a structured binding)
    const auto flows =
        absl::c_find_if(plan.rows, [&from](const RouteRow& row) { return row.origin == from; });
    const RouteRow* row = flows == plan.rows.end() ? nullptr : &*flows;
    std::optional<PricedShares> chosen, counterfactual;
    if (chosen_row != booking.chosen.end()) {
      chosen = PriceShares(chosen_row->second, intensity, row);
    }
    if (counterfactual_row != booking.counterfactual.end()) {
      counterfactual = PriceShares(counterfactual_row->second, intensity, row);
    }
    if (!chosen || !counterfactual) {
      skip(ledger::kUnknownIntensity);
      continue;
    }
    std::vector<ledger::PodEnergy> energy;
    if (booking.joules_per_request) {
      energy.push_back({rate * absl::ToDoubleSeconds(interval) * *booking.joules_per_request,
                        ledger::EnergySource::kDeclared});
    } else {
      for (const ledger::PodEnergy& part : measured) {
        energy.push_back({part.joules * rate / requests, part.source});
      }
    }
    for (const ledger::PodEnergy& part : energy) {
      const absl::Status booked =
          ledger_.Accrue(key, {.energy_joules = part.joules,
                               .energy_source = part.source,
                               .chosen_grams_per_kwh = chosen->grams_per_kwh,
                               .counterfactual_grams_per_kwh = counterfactual->grams_per_kwh,
                               .chosen_origin_rtt = chosen->origin_rtt,
                               .counterfactual_origin_rtt = counterfactual->origin_rtt});
      if (!booked.ok()) skip(ledger::kUnknownIntensity);
    }
  }
}

}  // namespace carbonroute::routing
