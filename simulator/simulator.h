// File: simulator/simulator.h
//
// `scheduler-lite simulate`: what each placement policy would have emitted
// over an hourly carbon-intensity trace, for a grid of latency limits and
// idle capacities (README "How much would it save?"; the model in
// simulation_sites.h and site_placement.h).
//
// Periods: the trace is cut into periods of `runtime_hours` (the last may be
// shorter); work is re-placed at the start of each. A period's cost is, for
// every unit of origins' work, the true mean intensity over the period of the
// site it runs at, times the period's hours. The figure of merit is the
// load-weighted mean intensity of the origins' work over the trace:
//   mean = Σ_periods hours · Σ_units intensity / (Σ_periods hours · origins' units)   [gCO2eq/kWh]
// saving_percent = 100 · (local − policy) / local; oracle_saving_share =
// saving ÷ oracle's saving (absent when the oracle saves nothing).
//
// Policies: local, static (site_placement.h), carbonroute
// (carbonroute_placer.h; `forecast` says what it may know of the coming
// period: perfect, the trace itself; persistence, the same hours of the
// previous day, nothing in the first day; noisy:P, the means of each site's
// ForecastSeries over the coming hours; simulated_forecast.h), oracle
// (oracle_placer.h).
//
// Every placement of every policy in every period is checked
// (CheckPlacement); the oracle's cost is compared with every other policy's
// in every period. Configurations (limit × idle level) run on `threads`
// threads; the output does not depend on their number or order.
//
// Errors: kInvalidArgument for bad options (naming the field and value);
// kInternal if a check fails (a bug).
// Thread safety: Simulate may be called concurrently; `progress` is
// incremented by the worker threads (once per configuration and period).
#ifndef CARBONROUTE_SIMULATOR_SIMULATOR_H_
#define CARBONROUTE_SIMULATOR_SIMULATOR_H_

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "contract/intensity_trace.h"
#include "placement/scoring.h"
#include "simulator/simulated_forecast.h"
#include "simulator/simulation_sites.h"

namespace carbonroute::simulator {

enum class SimulatedPolicy { kLocal, kStatic, kCarbonroute, kOracle };
inline constexpr SimulatedPolicy kSimulatedPolicies[] = {
    SimulatedPolicy::kLocal, SimulatedPolicy::kStatic, SimulatedPolicy::kCarbonroute,
    SimulatedPolicy::kOracle};
absl::string_view PolicyName(SimulatedPolicy policy);  // "local", "static", ...
std::optional<SimulatedPolicy> ParsePolicy(absl::string_view name);

struct SimulationOptions {
  // Latency limits in milliseconds, as doubles: the simulator compares them
  // with its dense site × site RTT array (SiteTopology::RttMs) millions of
  // times a run; everything outside it (the extender, rank, Karmada) carries
  // limits as absl::Duration, and CarbonroutePlacer converts at its Workload.
  std::vector<double> max_rtt_ms = {5, 50, 100, 150, 200, 250, 300};
  std::vector<int> idle_percent = {0, 50, 99};  // each in [0, 100)
  std::vector<SimulatedPolicy> policies = {std::begin(kSimulatedPolicies),
                                           std::end(kSimulatedPolicies)};  // rows reported
  int runtime_hours = 1;
  SimulatedForecast forecast;        // simulated_forecast.h
  std::vector<std::size_t> origins;  // site ids; empty: every site
  // the carbonroute policy's ScoringOptions (scoring.h)
  double carbon_weight = placement::kDefaultCarbonWeight;
  double latency_weight = placement::kDefaultLatencyWeight;
  double carbon_tolerance = placement::kDefaultCarbonTolerance;  // gCO2eq/kWh
  bool capacity_prices = true;                                   // carbonroute_placer.h
  int threads = 0;  // 0: std::thread::hardware_concurrency()
  std::atomic<std::size_t>* progress = nullptr;
};

struct SimulationRow {
  SimulatedPolicy policy = SimulatedPolicy::kLocal;
  double max_rtt_ms = 0;
  int idle_percent = 0;
  double mean_grams_per_kwh = 0;
  double saving_percent = 0;
  std::optional<double> oracle_saving_share;
  // The price of the choice: the work-weighted RTT from each unit's origin to
  // the site that ran it, ms (local: the sites' self RTT, 5 ms).
  double mean_rtt_ms = 0;
};

struct SimulationResult {
  // Ordered by idle level, then limit (as given), then policy (as given).
  std::vector<SimulationRow> rows;
  std::size_t periods = 0;
  std::size_t placements_checked = 0;  // by CheckPlacement
  // The largest amount by which the oracle's cost of a period exceeded another
  // policy's, relative to that cost: ≤ 0 up to rounding (1e-12).
  double worst_oracle_excess = 0;
};

// The number of progress increments a run makes (for a progress bar).
std::size_t SimulationSteps(const IntensityTrace& trace, const SimulationOptions& options);

absl::StatusOr<SimulationResult> Simulate(const SiteTopology& topology, const IntensityTrace& trace,
                                          const SimulationOptions& options);

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_SIMULATOR_H_
