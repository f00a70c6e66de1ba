// File: simulator/replacement.h
//
// `simulate --shift rebalance`: what re-placing long-running services adds to
// placing them once, at bind time (docs/rebalance.md "What it is worth").
//
// Services: at every site of the topology (a grid zone that hosts a region and
// has data in the trace), one service arrives each day of the trace, at hour
// (day mod 24) of that day (so arrivals cover every hour of the day), and runs
// `lifetime_hours` (cut at the trace's end) at a constant power P. Services are
// marginal (each fits in a site's idle room and changes no intensity), as the
// jobs of --shift both.
//   bind time   at arrival the service is placed at the cleanest site within
//               the latency limit of its origin (the extender's choice with its
//               default tolerance of 0), and stays;
//   rebalance   placed the same way, then weighed every hour by the controller's
//               rules (rebalance/rebalance_controller.h): the cleanest site
//               within the limit beats its own by more than the tolerance for
//               at least minStay (whole hours, rounded up: the trace is hourly),
//               it has run minStay where it is, and the move pays
//               (placement/move_payback.h, persistence: the gap now over the
//               horizon against the restart, priced at the destination). A
//               restart costs `restart_minutes` of the service's own power, so
//               the results do not depend on P.
// Each hour at a site costs P × 1 h × its intensity; a restart P × minutes / 60
// × the destination's. Per configuration (group × limit × tolerance × restart
// cost): the service-hour-weighted mean intensity of local (never moved), bind
// time and rebalance (restarts included), the extra saving of rebalance over
// bind time (percent of bind time's grams) and the moves per workload-day.
//
// Errors: kInvalidArgument naming the field for an empty list, a negative or
// non-finite value, a lifetime under an hour, or a group without a site.
// Thread safety: may be called concurrently.
#ifndef CARBONROUTE_SIMULATOR_REPLACEMENT_H_
#define CARBONROUTE_SIMULATOR_REPLACEMENT_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "contract/intensity_trace.h"
#include "simulator/simulation_sites.h"

namespace carbonroute::simulator {

struct ReplacementOptions {
  std::vector<double> max_rtt_ms = {25, 100};
  std::vector<double> tolerances = {25, 50, 100};     // gCO2eq/kWh
  std::vector<double> restart_minutes = {1, 15, 60};  // a restart's energy, in minutes of power
  int lifetime_hours = 168;
  absl::Duration min_stay = absl::Minutes(30);
  absl::Duration horizon = absl::Hours(4);
  std::vector<std::string> groups = {"Global"};  // "Global" or zone_groups.h's columns
};

struct ReplacementRow {
  std::string group;
  double max_rtt_ms = 0, tolerance = 0, restart_minutes = 0;
  std::size_t services = 0;
  double workload_days = 0;
  double local_mean = 0, bind_mean = 0, rebalance_mean = 0;  // gCO2eq/kWh per service-hour
  double extra_saving_percent = 0;                           // 100 × (bind − rebalance) / bind
  double moves_per_workload_day = 0;
};

// Rows ordered by group, limit, tolerance, restart cost (each as given).
absl::StatusOr<std::vector<ReplacementRow>> SimulateReplacement(
    const SiteTopology& topology, const IntensityTrace& trace,
    const std::map<std::string, std::set<std::string>>& zone_groups,
    const ReplacementOptions& options);

}  // namespace carbonroute::simulator

#endif  // CARBONROUTE_SIMULATOR_REPLACEMENT_H_
