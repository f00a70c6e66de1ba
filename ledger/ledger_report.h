// File: ledger/ledger_report.h
//
// `scheduler-lite report`'s arithmetic: what the ledger's counters
// (ledger/ledger.h) grew by over a range, per group (namespace or
// controller), mode and emissions type, and the saving each comes to.
//
// The input is Prometheus' answer to LedgerQueries(): for each query, what
// one ledger counter grew by over the range, summed by the group's label,
// `mode`, `emissions_type` (and `basis`, `reason` where the counter has
// them). A series there at the range's start counts its increase(); one born
// inside the range (a controller started, a Pod decided once) counts from
// zero: its last value, as increase() cannot see the step from "absent" to
// its first sample (and its increase() plus its first value when it was
// reset inside the range). Rows never mix average with marginal, nor enforced with shadow; the
// totals are per mode and emissions type for the same reason.
//
// saving = counterfactual − chosen grams (negative: a loss, shown as one);
// share = saving / counterfactual (absent when the counterfactual is 0);
// mean RTT from origin = the RTT sum's increase / the accruals' increase.
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_LEDGER_LEDGER_REPORT_H_
#define CARBONROUTE_LEDGER_LEDGER_REPORT_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace carbonroute::ledger {

// What the report reads, one PromQL instant query each.
enum class LedgerQuery {
  kEnergy,
  kEmissions,
  kDecisions,
  kOriginRtt,
  kOriginRttAccruals,
  kSkipped
};
inline constexpr LedgerQuery kLedgerQueries[] = {
    LedgerQuery::kEnergy,    LedgerQuery::kEmissions,         LedgerQuery::kDecisions,
    LedgerQuery::kOriginRtt, LedgerQuery::kOriginRttAccruals, LedgerQuery::kSkipped};

// The query for `query` over the `range` before the evaluation time, grouped
// by `group_label` ("namespace" or "controller").
std::string LedgerPromQl(LedgerQuery query, const std::string& group_label, absl::Duration range);

// One series of a query's answer.
struct LedgerIncrease {
  LedgerQuery query = LedgerQuery::kEnergy;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct LedgerReportRow {
  std::string group;  // the namespace or controller; "total" in the totals
  std::string mode;   // "enforced", "shadow"
  std::string emissions_type;
  double decisions = 0;
  double energy_joules = 0;
  double chosen_grams = 0;
  double counterfactual_grams = 0;
  // Mean RTT from the workloads' origin where both bases had one.
  std::optional<absl::Duration> chosen_origin_rtt;
  std::optional<absl::Duration> counterfactual_origin_rtt;

  double saving_grams() const { return counterfactual_grams - chosen_grams; }
  std::optional<double> saving_share() const;
};

struct LedgerSkipped {
  std::string controller, emissions_type, reason;
  double intervals = 0;
};

struct LedgerReport {
  std::vector<LedgerReportRow> rows;    // by group, mode, emissions type
  std::vector<LedgerReportRow> totals;  // by mode, emissions type
  std::vector<LedgerSkipped> skipped;   // by controller, reason
  bool empty() const { return rows.empty() && skipped.empty(); }
};

LedgerReport BuildLedgerReport(const std::vector<LedgerIncrease>& increases,
                               const std::string& group_label);

}  // namespace carbonroute::ledger

#endif  // CARBONROUTE_LEDGER_LEDGER_REPORT_H_
