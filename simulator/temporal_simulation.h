// File: simulator/temporal_simulation.h
//
// The temporal grid of Sukprasert et al., EuroSys 2024 (§3, Figures 6–8):
// for every job length × slack × interruptibility, every zone of the trace
// and every arrival hour of the year, the mean gCO2eq/kWh per job-hour of
// each policy (simulator/temporal_shift.h), averaged over the zones of a
// group (and so over every job: each zone has the same arrivals):
//   mean_grams_per_kwh       = Σ_zones Σ_arrivals mean_job / (zones × arrivals)
//   reduction_grams_per_kwh  = now's mean − the policy's
//   oracle_saving_share      = reduction ÷ oracle's reduction (absent when the
//                              oracle saves nothing)
// Policies: now, carbonroute (simulator/temporal_policy.h; with `forecast`
// and `forecast_horizon_hours`, the noisy forecast seeded per zone) and
// oracle. Groups: "Global" (every zone) and the
// continents of data/zone-groups.csv (simulator/zone_groups.h); a group with no
// zone in the trace has no rows.
//
// With `reachable` (--shift both, simulator/both_shift.h): `now` runs on
// `trace` (at home, at once) and carbonroute and the oracle wait on
// `reachable`, a trace of the same zones and hours.
//
// Work is spread over `threads` threads by (zone, job length); the output
// does not depend on their number.
// Errors: kInvalidArgument for an empty or invalid list (naming the value)
// or an unknown group; kInternal if the oracle exceeds another policy for some job (a bug).
// Thread safety: may be called concurrently.
#ifndef CARBONROUTE_SIMULATOR_TEMPORAL_SIMULATION_H_
#define CARBONROUTE_SIMULATOR_TEMPORAL_SIMULATION_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "contract/intensity_trace.h"
#include "simulator/temporal_policy.h"

namespace carbonroute::simulator {

enum class TemporalPolicy { kNow, kCarbonroute, kOracle };

struct TemporalOptions {
  // The study's grid: 1 h … 1 week jobs; slack 24 h, 7 d, 20 d, 30 d and a year.
  std::vector<int> job_lengths_hours = {1, 6, 12, 24, 48, 96, 168};
  std::vector<int> slacks_hours = {24, 168, 480, 720, 8760};
  std::vector<bool> interruptible = {false, true};
  std::vector<std::string> groups = {"Global", "Americas", "Europe", "Asia", "Oceania"};
  bool carbonroute = true;  // also run the carbonroute policy (the slowest of the three)
  SimulatedForecast forecast;
  int forecast_horizon_hours = 24;
  int threads = 0;  // 0: std::thread::hardware_concurrency()
};

struct TemporalRow {
  TemporalPolicy policy = TemporalPolicy::kNow;
  std::string group;
  int job_length_hours = 0;
  int slack_hours = 0;
  bool interruptible = false;
  std::optional<double> max_rtt_ms;  // --shift both: the latency limit of the row
  double mean_grams_per_kwh = 0;
  double reduction_grams_per_kwh = 0;
  std::optional<double> oracle_saving_share;
};

// Rows ordered by group (as given), job length, slack, interruptibility (as
// given), then policy (now, carbonroute, oracle). `zone_groups`: ParseZoneGroups' result.
absl::StatusOr<std::vector<TemporalRow>> SimulateTemporal(
    const IntensityTrace& trace, const std::map<std::string, std::set<std::string>>& zone_groups,
    const TemporalOptions& options, const IntensityTrace* reachable = nullptr);

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_TEMPORAL_SIMULATION_H_
