// File: simulator/carbonroute_placer.h
//
// The simulator's `carbonroute` policy: each period, every origin's work is
// placed through scheduler-lite's own scoring (ScoreCompact in scoring.h, the
// function the extender calls), with the latency limit as the workload's
// hard filter (max_rtt_ms from the origin) and the period as its expected
// runtime, on a model that holds only what collectors would export at the
// period's start (SiteSignal).
//
// The model: each site is a region named by its zone code, drawing from that
// grid location; its RTT row is the site matrix (SiteTopology), declared,
// itself included (kSiteSelfRttMs). It is built once; each period's signals
// are written into it in place.
//
// Capacity prices (`CarbonrouteScoring::capacity_prices`, on by default): at
// each period's start the placer solves the period's min-cost flow on the
// carbon values the scoring uses (the forecast, never the truth: perfect,
// persistence or noisy) and the current occupancy, and hands the sites' dual
// prices to the scoring (ScoringOptions::capacity_price): a site that the
// forecast says will fill looks as dirty as the best alternative of those who
// would lose it, so the origins with no other clean choice keep it.
//
// Placing, per period, origin by origin. The order: with capacity prices,
// the origins with the fewest best sites (least intensity + price among those
// their limit allows; with exact prices most origins are indifferent among
// several, and the ones with a single choice must get it first), then in
// descending order of the carbon value the scoring uses for them (the forecast
// mean over the runtime when exported, else the current reading; ties by zone
// code): the dirtiest have the most to gain. For each origin, the candidates
// are itself and every site with free capacity (a full site is not a
// candidate); the top-scored one takes as much of the origin's remaining work
// as it has room for, and the origin is scored again, until the origin itself
// scores top (the rest stays home) or all its work has moved. Work moved away
// frees room at home for later origins. With a limit below the site's own RTT
// (5 ms) the origin itself fails the filter, and nothing moves.
//
// Figures (README "How much would it save?"): on the shipped year, with
// perfect forecasts, capacity prices lift the share of the oracle's saving
// where capacity binds (50 % idle) from 0.926–0.978 to 0.974–1 at 50–300 ms.
//
// Thread safety: not thread-safe (one per thread); borrows `limits`.
#ifndef CARBONROUTE_SIMULATOR_CARBONROUTE_PLACER_H_
#define CARBONROUTE_SIMULATOR_CARBONROUTE_PLACER_H_

#include <array>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "placement/placement_model.h"
#include "placement/scoring.h"
#include "simulator/oracle_placer.h"
#include "simulator/site_placement.h"

namespace carbonroute::simulator {

// What a site's collector would export at the start of a period, gCO2eq/kWh.
struct SiteSignal {
  double current = 0;  // the reading of the period's first hour
  // The forecast means over the next 1h, 4h, 24h (kForecastWindows order);
  // absent: not exported.
  std::array<std::optional<double>, 3> forecast_mean;
};

// The scoring's settings (ScoringOptions in scoring.h, as `serve` takes them),
// and whether capacity is priced.
struct CarbonrouteScoring {
  double carbon_weight = placement::kDefaultCarbonWeight;
  double latency_weight = placement::kDefaultLatencyWeight;
  double carbon_tolerance = placement::kDefaultCarbonTolerance;
  bool capacity_prices = true;
};

class CarbonroutePlacer {
 public:
  CarbonroutePlacer(const PlacementLimits& limits, absl::Duration runtime,
                    const CarbonrouteScoring& scoring = {});
  CarbonroutePlacer(const CarbonroutePlacer&) = delete;
  CarbonroutePlacer& operator=(const CarbonroutePlacer&) = delete;

  // `signals`: per site. `now`: the period's start. kInternal if the pricing
  // flow fails (OraclePlacer::CapacityPrices; a bug).
  absl::StatusOr<Placement> Place(const std::vector<SiteSignal>& signals, absl::Time now);

 private:
  const PlacementLimits& limits_;
  const ForecastWindow* const window_;
  const CarbonrouteScoring scoring_;
  OraclePlacer pricer_;                 // the min-cost flow on the forecast
  std::vector<double> location_price_;  // per model location id
  std::unique_ptr<placement::PlacementModel> model_;
  std::vector<placement::LocationCarbon*> carbon_;  // per site, into *model_
  std::vector<placement::Candidate> site_candidates_;
  std::vector<placement::Candidate> candidates_;  // the ones of one scoring call
  std::vector<std::size_t> candidate_sites_;      // their site ids
  std::vector<placement::Workload> workloads_;    // per site as the origin
};

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_CARBONROUTE_PLACER_H_
