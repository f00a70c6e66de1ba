// File: output/simulation_output.h
//
// The answers of `scheduler-lite simulate`: a table for people, CSV and JSON
// for programs, and a plot drawn by gnuplot (http://gnuplot.info/docs/).
//
// CSV: the header is exactly
//   policy,max_rtt_ms,idle_capacity_percent,mean_grams_per_kwh,saving_percent,oracle_saving_share,mean_rtt_ms
// one row per SimulationRow, in its order; mean with 3 decimals, saving
// (percent) with 3, the share with 4, and an empty share when the oracle saves
// nothing (0 % idle capacity, a limit that allows no move); mean_rtt_ms, the
// work-weighted RTT from origin to the site that ran the work, with 3.
// JSON: {"runtime_hours", "forecast", "periods", "sites": [zone...],
//        "skipped_sites": [zone...], "rows": [{the CSV columns; share null when absent}]}.
//
// Thread safety: pure functions, except PlotSimulation (runs a program; files
// in its own temporary directory).
#ifndef CARBONROUTE_OUTPUT_SIMULATION_OUTPUT_H_
#define CARBONROUTE_OUTPUT_SIMULATION_OUTPUT_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "output/gnuplot_plot.h"  // IsPlotPath
#include "simulator/replacement.h"
#include "simulator/simulation_sites.h"
#include "simulator/simulator.h"

namespace carbonroute::scheduler_lite {

inline constexpr char kSimulationCsvHeader[] =
    "policy,max_rtt_ms,idle_capacity_percent,mean_grams_per_kwh,saving_percent,"
    "oracle_saving_share,mean_rtt_ms";

void WriteSimulationTable(const simulator::SimulationResult& result, std::ostream& out);
// --shift rebalance (simulator/replacement.h): a table for people, or CSV with the header
// group,max_rtt_ms,tolerance_g_per_kwh,restart_minutes,services,workload_days,local_mean,
// bind_mean,rebalance_mean,extra_saving_percent,moves_per_workload_day; JSON: the rows.
void WriteReplacementTable(const std::vector<simulator::ReplacementRow>& rows, std::ostream& out);
void WriteReplacementCsv(const std::vector<simulator::ReplacementRow>& rows, std::ostream& out);
void WriteReplacementJson(const std::vector<simulator::ReplacementRow>& rows, std::ostream& out);
void WriteSimulationCsv(const simulator::SimulationResult& result, std::ostream& out);
void WriteSimulationJson(const simulator::SiteTopology& topology,
                         const simulator::SimulationOptions& options,
                         const simulator::SimulationResult& result, std::ostream& out);

// Mean intensity against the latency limit, one line per policy, one panel
// per idle level, into `path` (SVG for ".svg", PNG for ".png"). Runs
// `gnuplot` from PATH. Errors: kInvalidArgument for another extension;
// kNotFound when gnuplot cannot be run; kUnknown when it fails; kInternal when
// its files cannot be written.
absl::Status PlotSimulation(const simulator::SimulationResult& result, const std::string& path);

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_OUTPUT_SIMULATION_OUTPUT_H_
