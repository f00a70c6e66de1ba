// File: scheduler-lite/simulate_command.h
//
// `scheduler-lite simulate`: reads the trace, the
// region → zone map and the RTT matrix, resolves --origins, runs Simulate
// (simulator.h) and writes the answer (simulation_output.h). With --shift
// time: reads the trace and the zone groups (data/zone-groups.csv), runs
// SimulateTemporal (temporal_simulation.h) and writes its answer
// (temporal_output.h).
//
// Exit codes: 0 done (sites the trace has no data for are skipped with a
// warning naming them); 1 the plot could not be drawn; 2 bad arguments: an
// input file missing or malformed, an unknown origin or one without carbon
// data, no site left.
#ifndef CARBONROUTE_SCHEDULER_LITE_SIMULATE_COMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_SIMULATE_COMMAND_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "scheduler-lite/subcommand.h"
#include "simulator/replacement.h"
#include "simulator/simulator.h"
#include "simulator/temporal_simulation.h"

namespace carbonroute::scheduler_lite {

struct SimulateRequest {
  std::string shift =
      "space";            // space (placement across sites) | time (waiting) | both | rebalance
  std::string trace_csv;  // datetime,<zone>... hourly gCO2eq/kWh
  std::string zone_groups_csv;   // --shift time: zone_code,...,Americas,Europe,Asia,Oceania
  std::string region_zones_csv;  // gcp_region,zone
  // Every cloud's regions (data/cloud-regions.csv): an origin that is a region
  // of another cloud ("eastus") is taken as its grid zone's site.
  std::string cloud_regions_csv;
  std::string rtt_matrix_csv;                 // sending_region,receiving_region,milliseconds
  std::vector<std::string> origins;           // regions or zones; empty: every site
  simulator::SimulationOptions options;       // origins are filled from `origins`
  simulator::TemporalOptions temporal;        // --shift time and both
  std::vector<double> both_max_rtt_ms;        // --shift both: the latency limits
  simulator::ReplacementOptions replacement;  // --shift rebalance
  std::vector<std::string> temporal_policies = {"now", "carbonroute", "oracle"};  // --shift time
  std::string format = "table";                                                   // table|csv|json
  std::string plot;           // "" or FILE.svg / FILE.png
  bool progress_bar = false;  // draw one on `err` (when it is a terminal)
};

int SimulateCommand(const SimulateRequest& request, std::ostream& out, std::ostream& err);

std::unique_ptr<Subcommand> NewSimulateSubcommand();

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_SIMULATE_COMMAND_H_
