#include "ledger/ledger_report.h"

#include <tuple>

#include "absl/strings/str_cat.h"
#include "contract/metric_labels.h"
#include "contract/metric_names.h"

namespace carbonroute::ledger {
namespace {

namespace label = metric_labels;

std::string Label(const std::map<std::string, std::string>& labels, const std::string& name) {
  auto it = labels.find(name);
  return it == labels.end() ? "" : it->second;
}

// The RTT sums and their accruals of one row, per basis.
struct RttSums {
  std::map<std::string, double> seconds, accruals;
};

}  // namespace

std::optional<double> LedgerReportRow::saving_share() const {
  if (counterfactual_grams <= 0) return std::nullopt;
  return saving_grams() / counterfactual_grams;
}

std::string LedgerPromQl(LedgerQuery query, const std::string& group_label, absl::Duration range) {
  const std::string window = absl::StrCat("[", absl::ToInt64Seconds(range), "s]");
  const std::string by = absl::StrCat(group_label, ", ", label::kMode, ", ", label::kEmissionsType);
  // Per series: increase() where the series was there at the start; else from zero (its
  // last value, or with a reset inside the range its increase() plus its first value).
  auto sum = [&](const char* metric, const std::string& labels) {
    const std::string over = absl::StrCat(metric, window),
                      before = absl::StrCat(metric, " offset ", absl::ToInt64Seconds(range), "s");
    return absl::StrCat("sum by (", labels, ") ((increase(", over, ") and ", before,
                        ") or (last_over_time(", over, ") unless ", before, " unless resets(", over,
                        ") > 0) or ((increase(", over, ") + min_over_time(", over, ")) unless ",
                        before, "))");
  };
  switch (query) {
    case LedgerQuery::kEnergy:
      return sum(metric_names::kLedgerEnergy, by);
    case LedgerQuery::kEmissions:
      return sum(metric_names::kLedgerEmissions, absl::StrCat(by, ", ", label::kBasis));
    case LedgerQuery::kDecisions:
      return sum(metric_names::kLedgerDecisions, by);
    case LedgerQuery::kOriginRtt:
      return sum(metric_names::kLedgerOriginRtt, absl::StrCat(by, ", ", label::kBasis));
    case LedgerQuery::kOriginRttAccruals:
      return sum(metric_names::kLedgerOriginRttAccruals, absl::StrCat(by, ", ", label::kBasis));
    case LedgerQuery::kSkipped:
      return sum(
          metric_names::kLedgerIntervalsSkipped,
          absl::StrCat(label::kController, ", ", label::kEmissionsType, ", ", label::kReason));
  }
  return "";
}

LedgerReport BuildLedgerReport(const std::vector<LedgerIncrease>& increases,
                               const std::string& group_label) {
  using Key = std::tuple<std::string, std::string, std::string>;  // group, mode, type
  std::map<Key, LedgerReportRow> rows;
  std::map<Key, RttSums> rtts;
  LedgerReport report;
  for (const LedgerIncrease& increase : increases) {
    if (increase.query == LedgerQuery::kSkipped) {
      report.skipped.push_back({Label(increase.labels, label::kController),
                                Label(increase.labels, label::kEmissionsType),
                                Label(increase.labels, label::kReason), increase.value});
      continue;
    }
    const Key key{Label(increase.labels, group_label), Label(increase.labels, label::kMode),
                  Label(increase.labels, label::kEmissionsType)};
    LedgerReportRow& row = rows[key];
    std::tie(row.group, row.mode, row.emissions_type) = key;
    const std::string basis = Label(increase.labels, label::kBasis);
    switch (increase.query) {
      case LedgerQuery::kEnergy:
        row.energy_joules += increase.value;
        break;
      case LedgerQuery::kEmissions:
        (basis == label::kBasisChosen ? row.chosen_grams : row.counterfactual_grams) +=
            increase.value;
        break;
      case LedgerQuery::kDecisions:
        row.decisions += increase.value;
        break;
      case LedgerQuery::kOriginRtt:
        rtts[key].seconds[basis] += increase.value;
        break;
      case LedgerQuery::kOriginRttAccruals:
        rtts[key].accruals[basis] += increase.value;
        break;
      case LedgerQuery::kSkipped:
        break;
    }
  }
  std::map<std::pair<std::string, std::string>, LedgerReportRow> totals;
  std::map<std::pair<std::string, std::string>, RttSums> total_rtts;
  auto mean = [](const RttSums& sums, const std::string& basis) -> std::optional<absl::Duration> {
    auto seconds = sums.seconds.find(basis);
    auto accruals = sums.accruals.find(basis);
    if (seconds == sums.seconds.end() || accruals == sums.accruals.end() || accruals->second <= 0) {
      return std::nullopt;
    }
    return absl::Seconds(seconds->second / accruals->second);
  };
  for (auto& [key, row] : rows) {
    const RttSums& sums = rtts[key];
    row.chosen_origin_rtt = mean(sums, label::kBasisChosen);
    row.counterfactual_origin_rtt = mean(sums, label::kBasisCounterfactual);
    report.rows.push_back(row);
    const std::pair<std::string, std::string> total_key{row.mode, row.emissions_type};
    LedgerReportRow& total = totals[total_key];
    total.group = "total";
    total.mode = row.mode;
    total.emissions_type = row.emissions_type;
    total.decisions += row.decisions;
    total.energy_joules += row.energy_joules;
    total.chosen_grams += row.chosen_grams;
    total.counterfactual_grams += row.counterfactual_grams;
    for (const auto& [basis, value] : sums.seconds) total_rtts[total_key].seconds[basis] += value;
    for (const auto& [basis, value] : sums.accruals) total_rtts[total_key].accruals[basis] += value;
  }
  for (auto& [key, total] : totals) {
    total.chosen_origin_rtt = mean(total_rtts[key], label::kBasisChosen);
    total.counterfactual_origin_rtt = mean(total_rtts[key], label::kBasisCounterfactual);
    report.totals.push_back(total);
  }
  return report;
}

}  // namespace carbonroute::ledger
