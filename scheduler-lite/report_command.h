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
// Exit codes: 0 a report; 1 Prometheus could not be read; 2 bad flags;
// 3 no ledger series in the range.
#ifndef CARBONROUTE_SCHEDULER_LITE_REPORT_COMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_REPORT_COMMAND_H_

#include <memory>
#include <optional>
#include <ostream>
#include <string>

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
  model_sources::SourceAuth auth;
};

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
