// File: output/temporal_output.h
//
// The answers of `scheduler-lite simulate --shift time` and `--shift both`
// (simulator/temporal_simulation.h, simulator/both_shift.h): a table for people, CSV and JSON for
// programs, and a gnuplot plot (output/gnuplot_plot.h).
//
// CSV: the header is exactly
//   policy,group,job_length_hours,slack_hours,interruptible,mean_grams_per_kwh,reduction_grams_per_kwh,oracle_saving_share
// one row per TemporalRow, in its order; interruptible is yes or no; the mean
// and reduction with 3 decimals, the share with 4, empty when the oracle
// saves nothing. --shift both: the same with max_rtt_ms after group
// (kBothCsvHeader), and a MAX RTT column in the table.
// JSON: {"shift": "time" or "both", "zones": N, "forecast", "forecast_horizon_hours", "rows": [{the
// CSV columns; interruptible true/false; share null when absent}]}. Plot: the oracle's reduction
// (gCO2eq/kWh) against the slack, one line per job length, one panel per interruptibility, for the
// first group (and the first limit).
//
// Thread safety: pure functions, except PlotTemporal (runs gnuplot).
#ifndef CARBONROUTE_OUTPUT_TEMPORAL_OUTPUT_H_
#define CARBONROUTE_OUTPUT_TEMPORAL_OUTPUT_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "simulator/temporal_simulation.h"

namespace carbonroute::scheduler_lite {

inline constexpr char kTemporalCsvHeader[] =
    "policy,group,job_length_hours,slack_hours,interruptible,mean_grams_per_kwh,"
    "reduction_grams_per_kwh,oracle_saving_share";

inline constexpr char kBothCsvHeader[] =
    "policy,group,max_rtt_ms,job_length_hours,slack_hours,interruptible,mean_grams_per_kwh,"
    "reduction_grams_per_kwh,oracle_saving_share";

// "now", "carbonroute", "oracle".
absl::string_view TemporalPolicyName(simulator::TemporalPolicy policy);

void WriteTemporalTable(const std::vector<simulator::TemporalRow>& rows, std::ostream& out);
void WriteTemporalCsv(const std::vector<simulator::TemporalRow>& rows, std::ostream& out);
void WriteTemporalJson(const std::vector<simulator::TemporalRow>& rows, std::size_t zones,
                       const simulator::TemporalOptions& options, std::ostream& out);
absl::Status PlotTemporal(const std::vector<simulator::TemporalRow>& rows, const std::string& path);

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_OUTPUT_TEMPORAL_OUTPUT_H_
