// File: scheduler-lite/carbonroute_placer.h
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
// Placing, per period: origins in descending order of the carbon value the
// scoring uses for them (the forecast mean over the runtime when exported,
// else the current reading; ties by zone code): the dirtiest have the most to
// gain, so they choose first when capacity binds. For each origin, the
// candidates are itself and every site with free capacity (a full site is not
// a candidate); the top-scored one takes as much of the origin's remaining
// work as it has room for, and the origin is scored again, until the origin
// itself scores top (the rest stays home) or all its work has moved. Work
// moved away frees room at home for later origins. With a limit below the
// site's own RTT (5 ms) the origin itself fails the filter, and nothing moves.
//
// Thread safety: not thread-safe (one per thread); borrows `limits`.
#ifndef CARBONROUTE_SIMULATOR_CARBONROUTE_PLACER_H_
#define CARBONROUTE_SIMULATOR_CARBONROUTE_PLACER_H_

#include <array>
#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "placement/placement_model.h"
#include "placement/scoring.h"
#include "simulator/site_placement.h"

namespace carbonroute::simulator {

// What a site's collector would export at the start of a period, gCO2eq/kWh.
struct SiteSignal {
  double current = 0;  // the reading of the period's first hour
  // The forecast means over the next 1h, 4h, 24h (kForecastWindows order);
  // absent: not exported.
  std::array<std::optional<double>, 3> forecast_mean;
};

class CarbonroutePlacer {
 public:
  // `carbon_weight`, `latency_weight`: ScoringOptions' (scoring.h), as `serve` takes them.
  CarbonroutePlacer(const PlacementLimits& limits, absl::Duration runtime,
                    double carbon_weight = placement::kDefaultCarbonWeight,
                    double latency_weight = placement::kDefaultLatencyWeight);
  CarbonroutePlacer(const CarbonroutePlacer&) = delete;
  CarbonroutePlacer& operator=(const CarbonroutePlacer&) = delete;

  // `signals`: per site. `now`: the period's start.
  Placement Place(const std::vector<SiteSignal>& signals, absl::Time now);

 private:
  const PlacementLimits& limits_;
  const ForecastWindow* const window_;
  const double carbon_weight_, latency_weight_;
  std::unique_ptr<placement::PlacementModel> model_;
  std::vector<placement::LocationCarbon*> carbon_;  // per site, into *model_
  std::vector<placement::Candidate> site_candidates_;
  std::vector<placement::Candidate> candidates_;  // the ones of one scoring call
  std::vector<std::size_t> candidate_sites_;      // their site ids
  std::vector<placement::Workload> workloads_;    // per site as the origin
};

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_CARBONROUTE_PLACER_H_
