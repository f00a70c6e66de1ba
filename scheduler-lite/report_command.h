// File: scheduler-lite/report_command.h
//
// `scheduler-lite report`: what carbonroute's decisions saved, read from the
// savings ledger's counters (ledger/ledger.h) in Prometheus over a range:
// per namespace or controller, mode and emissions type, the decisions, the
// energy (kWh), the grams where the workloads ran and where the stated
// counterfactual would have run them, the saving (signed: a loss is shown as
// a loss) and its share, and the mean RTT from the workloads' origin on each
// basis where the controller has one; then the intervals left out and why.
// Arithmetic: ledger/ledger_report.h. Counterfactuals: docs/savings.md.
//
// With --plot FILE, also the saving per day (per hour when the range is under
// two days) and per mode and emissions type, drawn with gnuplot (one
// emissions query per day or hour, at most 366 days).
//
// Exit codes: 0 a report; 1 Prometheus could not be read, or the plot could
// not be drawn (after the report); 2 bad flags; 3 no ledger series in the
// range.
#ifndef CARBONROUTE_SCHEDULER_LITE_REPORT_COMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_REPORT_COMMAND_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "ledger/ledger_report.h"
#include "model_sources/metrics_source.h"
#include "net/http_client.h"
#include "scheduler-lite/subcommand.h"

namespace carbonroute::scheduler_lite {

struct ReportRequest {
  std::string prometheus;  // base URL
  absl::Duration since = absl::Hours(24 * 30);
  std::optional<absl::Time> until;  // the clock's now when absent
  std::string by = "namespace";     // or "controller"
  std::string format = "table";     // table, csv, json
  std::string plot;                 // .svg or .png; empty: no plot
  model_sources::SourceAuth auth;
};

// What --plot draws: the saving (counterfactual − chosen, grams; negative: a
// loss) per mode and emissions type ("enforced average") and per bucket,
// keyed by the bucket's end (Unix seconds). A bucket is a day, or an hour when
// the range is under two days; the first ends a bucket after the range's start,
// the last at `until`.
using SavingSeries = std::map<std::string, std::map<int64_t, double>>;
// One Prometheus query per bucket. Errors: those of model_sources::QueryInstant.
absl::StatusOr<SavingSeries> QuerySavingSeries(const ReportRequest& request, absl::Time until,
                                               net::HttpClient& http);
// Draws `series` into request.plot. Errors: kNotFound when `series` is empty;
// those of DrawWithGnuplot (output/gnuplot_plot.h).
absl::Status PlotSavings(const SavingSeries& series, const ReportRequest& request,
                         absl::Time until);

int ReportCommand(const ReportRequest& request, net::HttpClient& http, Clock& clock,
                  std::ostream& out, std::ostream& err);

// The report's three formats (exposed for tests).
void WriteReportTable(const ledger::LedgerReport& report, const ReportRequest& request,
                      absl::Time until, std::ostream& out);
void WriteReportCsv(const ledger::LedgerReport& report, const ReportRequest& request,
                    std::ostream& out);
void WriteReportJson(const ledger::LedgerReport& report, const ReportRequest& request,
                     absl::Time until, std::ostream& out);

std::unique_ptr<Subcommand> NewReportSubcommand();

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_REPORT_COMMAND_H_
