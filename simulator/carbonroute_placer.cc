#include "simulator/carbonroute_placer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace carbonroute::simulator {

using placement::CompactScores;
using placement::FailureDetail;
using placement::ForecastWindowFor;
using placement::LocationCarbon;
using placement::PlacementFacts;
using placement::PlacementModel;
using placement::ScoreCompact;
using placement::ScoringOptions;
using placement::Workload;

namespace {

// The share of its dual price a site's score is given: a thousandth below, so
// that an origin indifferent between a priced (cleaner) site and another takes
// the priced one, which the optimum fills.
constexpr double kPriceShare = 0.999;
// Intensity + price within this of an origin's least counts as one of its best
// sites, gCO2eq/kWh: ten times the pricing flow's cost resolution (1/10,000).
constexpr double kPriceTie = 1e-3;

}  // namespace

CarbonroutePlacer::CarbonroutePlacer(const PlacementLimits& limits, absl::Duration runtime,
                                     const CarbonrouteScoring& scoring)
    : limits_(limits), window_(ForecastWindowFor(runtime)), scoring_(scoring), pricer_(limits) {
  const SiteTopology& topology = *limits.topology;
  const std::size_t n = topology.size();
  PlacementFacts facts;
  for (std::size_t from = 0; from < n; ++from) {
    const std::string& zone = topology.sites[from].zone;
    facts.region_locations[zone] = zone;
    for (std::size_t to = 0; to < n; ++to) {
      const double ms = topology.RttMs(from, to);
      if (std::isnan(ms)) continue;
      facts.rtt[zone][topology.sites[to].zone] = {absl::Microseconds(std::llround(ms * 1000)),
                                                  RttMethod::kDeclared, absl::UnixEpoch()};
    }
    LocationCarbon& carbon = facts.carbon[zone];
    carbon.provider = "trace";
    site_candidates_.push_back({zone, zone, zone});
    Workload workload;
    workload.max_rtt[zone] = absl::Milliseconds(limits.max_rtt_ms);
    workload.expected_runtime = runtime;
    workloads_.push_back(std::move(workload));
  }
  model_ = std::make_unique<PlacementModel>(facts);
  for (std::size_t s = 0; s < n; ++s) {
    carbon_.push_back(model_->MutableCarbon(model_->LocationId(topology.sites[s].zone)));
  }
  location_price_.assign(model_->location_count(), 0.0);
}

absl::StatusOr<Placement> CarbonroutePlacer::Place(const std::vector<SiteSignal>& signals,
                                                   absl::Time now) {
  const std::size_t n = limits_.size();
  std::vector<double> seen(n);  // the carbon value scoring uses, for the origins' order
  for (std::size_t s = 0; s < n; ++s) {
    LocationCarbon& carbon = *carbon_[s];
    carbon.grams_per_kwh = signals[s].current;
    carbon.valid_to = now + absl::Hours(1);
    seen[s] = signals[s].current;
    for (std::size_t w = 0; w < std::size(kForecastWindows); ++w) {
      const std::optional<double>& mean = signals[s].forecast_mean[w];
      if (mean) {
        carbon.forecast_mean[kForecastWindows[w].label] = *mean;
        if (&kForecastWindows[w] == window_) seen[s] = *mean;
      } else {
        carbon.forecast_mean.erase(kForecastWindows[w].label);
      }
    }
  }
  const std::vector<SimulationSite>& sites = limits_.topology->sites;
  ScoringOptions options;
  options.now = now;
  options.carbon_weight = scoring_.carbon_weight;
  options.latency_weight = scoring_.latency_weight;
  options.carbon_tolerance = scoring_.carbon_tolerance;
  // The origins' order: the fewest best sites first, then the dirtiest.
  std::vector<int> best_sites(n, 0);
  if (scoring_.capacity_prices) {
    absl::StatusOr<std::vector<double>> prices = pricer_.CapacityPrices(seen);
    if (!prices.ok()) return prices.status();
    for (std::size_t s = 0; s < n; ++s) {
      location_price_[model_->LocationId(sites[s].zone)] = (*prices)[s] * kPriceShare;
    }
    options.capacity_price = &location_price_;
    for (std::size_t o = 0; o < n; ++o) {
      if (!limits_.origin[o]) continue;
      double best = INFINITY;
      for (std::size_t s = 0; s < n; ++s) {
        if (limits_.Allowed(o, s)) best = std::min(best, seen[s] + (*prices)[s]);
      }
      for (std::size_t s = 0; s < n; ++s) {
        if (limits_.Allowed(o, s) && seen[s] + (*prices)[s] <= best + kPriceTie) ++best_sites[o];
      }
    }
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (best_sites[a] != best_sites[b]) return best_sites[a] < best_sites[b];
    return seen[a] != seen[b] ? seen[a] > seen[b] : sites[a].zone < sites[b].zone;
  });

  Placement placement = LocalPlacement(limits_);
  std::vector<int> free = FreeCapacityAtHome(limits_);
  for (std::size_t from : order) {
    if (!limits_.origin[from] || limits_.max_rtt_ms < limits_.topology->RttMs(from, from)) continue;
    while (placement.at(from, from) > 0) {
      candidates_.clear();
      candidate_sites_.clear();
      for (std::size_t to = 0; to < n; ++to) {
        if (to != from && free[to] == 0) continue;
        candidates_.push_back(site_candidates_[to]);
        candidate_sites_.push_back(to);
      }
      const CompactScores scores =
          ScoreCompact(*model_, candidates_, workloads_[from], options, FailureDetail::kScoresOnly);
      if (!scores.best) break;
      const std::size_t to = candidate_sites_[*scores.best];
      if (to == from) break;
      MoveWork(placement, free, from, to, placement.at(from, from));
    }
  }
  return placement;
}

}  // namespace carbonroute::simulator
