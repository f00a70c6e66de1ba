#include "routing/route_plan.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "base/usage.h"
#include "placement/scoring.h"

namespace carbonroute::routing {
namespace {

placement::Candidate CandidateOf(const PolicyLocality& locality) {
  return {.name = locality.locality, .location = locality.location, .region = locality.region};
}

PolicyLocality LocalityOf(const std::string& locality) {
  return {.locality = locality, .region = LocalityRegion(locality)};
}

}  // namespace

absl::StatusOr<RoutePlan> PlanRoutes(const RoutingPolicy& policy,
                                     const std::map<std::string, double>& endpoints,
                                     const placement::PlacementModel& model, absl::Time now,
                                     bool endpoints_are_origins,
                                     const std::map<std::string, double>* requests_per_second) {
  if (!policy.invalid.empty()) return absl::InvalidArgumentError(policy.invalid);
  RoutePlan plan;
  plan.at = now;
  // The destinations: the policy's localities (what it says of them wins), then the endpoints'.
  std::map<std::string, PolicyLocality> places;
  for (const PolicyLocality& locality : policy.localities) places[locality.locality] = locality;
  for (const auto& [locality, count] : endpoints) places.emplace(locality, LocalityOf(locality));
  std::vector<placement::Candidate> candidates;
  for (const auto& [name, place] : places) candidates.push_back(CandidateOf(place));

  // Carbon: the scoring's carbon value, without origins (every candidate scored).
  placement::ScoringOptions options;
  options.now = now;
  std::map<std::string, std::optional<double>> intensity;
  for (const placement::ScoredCandidate& scored :
       placement::ScoreCandidates(model, candidates, {}, options)) {
    intensity[scored.name] = scored.grams_per_kwh;
    const uint32_t id = model.LocationId(scored.location);
    const placement::LocationCarbon* carbon =
        id == placement::PlacementModel::kNone ? nullptr : model.Carbon(id);
    if (scored.grams_per_kwh && carbon != nullptr) {
      plan.emissions_types[scored.name] = carbon->emissions_type;
    }
  }
  const double scale = 1 + policy.headroom_percent / 100;
  std::vector<RouteDestination> destinations;
  for (const auto& [name, place] : places) {
    const auto seen = endpoints.find(name);
    const double count = place.amount.value_or(seen != endpoints.end() ? seen->second : 0);
    plan.endpoints[name] = count;
    destinations.push_back({name, count * scale, intensity[name]});
    if (!intensity[name]) plan.without_reading.push_back(name);
  }

  // The origins and their RTT to every destination, by the scoring's lookup.
  std::vector<RouteOrigin> origins;
  std::vector<PolicyLocality> origin_places;
  double measured = 0;
  if (requests_per_second != nullptr) {
    for (const auto& [locality, rate] : *requests_per_second) measured += rate;
  }
  if (measured > 0) {
    // Measured: each locality with requests, its share of them × the endpoints' total.
    double total_endpoints = 0;
    for (const auto& [name, count] : plan.endpoints) total_endpoints += count;
    for (const auto& [locality, rate] : *requests_per_second) {
      if (rate <= 0) continue;
      plan.requests_per_second[locality] = rate;
      origins.push_back({locality, rate / measured * std::max(total_endpoints, 1.0)});
      const std::string& wanted = locality;  // (clang: no capture of a structured binding)
      const auto declared = absl::c_find_if(
          policy.origins,
          [&wanted](const PolicyLocality& origin) { return origin.locality == wanted; });
      const auto place = places.find(locality);
      origin_places.push_back(declared != policy.origins.end() ? *declared
                              : place != places.end()          ? place->second
                                                               : LocalityOf(locality));
    }
  }
  for (const auto& [locality, count] : endpoints) {
    if (!endpoints_are_origins || measured > 0) break;
    origins.push_back({locality, count});
    origin_places.push_back(places.at(locality));
  }
  for (const PolicyLocality& origin : policy.origins) {
    if (measured > 0) break;
    // its endpoints say its demand
    if (endpoints_are_origins && endpoints.contains(origin.locality)) continue;
    origins.push_back({origin.locality, origin.amount.value_or(1)});
    origin_places.push_back(origin);
  }
  std::map<std::pair<std::string, std::string>, absl::Duration> rtt;
  for (const PolicyLocality& origin : origin_places) {
    placement::Workload workload;
    workload.max_rtt[origin.region] = absl::InfiniteDuration();
    for (const placement::ScoredCandidate& scored :
         placement::ScoreCandidates(model, candidates, workload, options)) {
      if (scored.latency) rtt[{origin.locality, scored.name}] = *scored.latency;
    }
  }
  absl::StatusOr<std::vector<RouteRow>> rows = RouteFlows(
      origins, destinations,
      {.max_rtt = policy.max_rtt, .carbon_tolerance = policy.carbon_tolerance},
      [&rtt](const std::string& from, const std::string& to) -> std::optional<absl::Duration> {
        const auto it = rtt.find({from, to});
        if (it == rtt.end()) return std::nullopt;
        return it->second;
      });
  if (!rows.ok()) return rows.status();
  plan.rows = *std::move(rows);
  plan.decided = plan.without_reading.size() < destinations.size();
  if (!plan.decided) return plan;

  for (const RouteRow& row : plan.rows) {
    std::vector<DestinationShare> shares;
    for (const RouteFlow& flow : row.flows) {
      shares.push_back({flow.destination, flow.share, flow.rtt.value_or(absl::InfiniteDuration())});
    }
    absl::StatusOr<std::vector<LocalityWeight>> weights = PercentWeights(shares);
    if (!weights.ok()) continue;  // no traffic from it: Istio's default for it
    DistributeRow distribute{.from = row.origin};
    for (const LocalityWeight& weight : *weights) {
      distribute.to.emplace_back(weight.locality, weight.percent);
    }
    plan.setting.distribute.push_back(std::move(distribute));
  }
  if (absl::Status checked = CheckLocalityLbSetting(plan.setting); !checked.ok()) {
    return absl::InternalError(
        absl::StrCat("the weights break Istio's rules: ", checked.message()));
  }
  return plan;
}

const DistributeRow* RoutePlan::RowFrom(const std::string& origin) const {
  for (const DistributeRow& row : setting.distribute) {
    if (row.from == origin) return &row;
  }
  return nullptr;
}

int64_t RoutePlan::WeightOf(const std::string& origin, const std::string& destination) const {
  const DistributeRow* row = RowFrom(origin);
  if (row == nullptr) return 0;
  for (const auto& [locality, weight] : row->to) {
    if (locality == destination) return weight;
  }
  return 0;
}

std::optional<double> ExpectedIntensity(const DistributeRow& row, const RouteRow& flows) {
  double sum = 0;
  for (const auto& [locality, weight] : row.to) {
    if (weight == 0) continue;
    const RouteFlow* flow = nullptr;
    for (const RouteFlow& candidate : flows.flows) {
      if (candidate.destination == locality) flow = &candidate;
    }
    if (flow == nullptr || !flow->allowed || !flow->grams_per_kwh) return std::nullopt;
    sum += static_cast<double>(weight) / 100 * *flow->grams_per_kwh;
  }
  return sum;
}

std::string UnknownLocalityRegion(const RoutingPolicy& policy,
                                  const placement::PlacementModel& model) {
  std::vector<std::string> known;
  for (const auto& [region, location] : model.RegionLocations()) known.emplace_back(region);
  for (const auto& [list, localities] :
       {std::pair{"localities", &policy.localities}, std::pair{"origins", &policy.origins}}) {
    for (std::size_t i = 0; i < localities->size(); ++i) {
      const PolicyLocality& locality = (*localities)[i];
      if (!locality.location.empty()) continue;
      const uint32_t region = model.RegionId(locality.region);
      if (region != placement::PlacementModel::kNone &&
          model.RegionLocation(region) != placement::PlacementModel::kNone) {
        continue;
      }
      const std::string nearest = ClosestMatch(locality.region, known);
      return absl::StrCat("spec.", list, "[", i, "].locality: \"", locality.locality,
                          "\": the region table has no region ", locality.region,
                          nearest.empty() ? "" : absl::StrCat(" (did you mean ", nearest, "?)"),
                          "; give its grid zone as location");
    }
  }
  return "";
}

}  // namespace carbonroute::routing
