#include "output/temporal_output.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "output/gnuplot_plot.h"

namespace carbonroute::scheduler_lite {

using simulator::TemporalPolicy;
using simulator::TemporalRow;

absl::string_view TemporalPolicyName(TemporalPolicy policy) {
  switch (policy) {
    case TemporalPolicy::kNow:
      return "now";
    case TemporalPolicy::kCarbonroute:
      return "carbonroute";
    case TemporalPolicy::kOracle:
      return "oracle";
  }
  return "?";
}

namespace {

bool WithLimits(const std::vector<TemporalRow>& rows) {
  return !rows.empty() && rows.front().max_rtt_ms.has_value();
}

}  // namespace

void WriteTemporalTable(const std::vector<TemporalRow>& rows, std::ostream& out) {
  const bool limits = WithLimits(rows);
  out << absl::StrFormat("%-12s %-9s %s%8s %9s %6s %14s %10s %12s\n", "POLICY", "GROUP",
                         limits ? "  MAX RTT " : "", "JOB", "SLACK", "SPLIT", "MEAN gCO2/kWh",
                         "REDUCTION", "OF ORACLE'S");
  const TemporalRow* previous = nullptr;
  for (const TemporalRow& row : rows) {
    if (previous != nullptr &&
        (previous->group != row.group || previous->job_length_hours != row.job_length_hours ||
         previous->max_rtt_ms != row.max_rtt_ms)) {
      out << "\n";
    }
    previous = &row;
    out << absl::StrFormat(
        "%-12s %-9s %s%6d h %7d h %6s %14.1f %10.1f %12s\n", TemporalPolicyName(row.policy),
        row.group, limits ? absl::StrFormat("%6g ms ", row.max_rtt_ms.value_or(0)) : "",
        row.job_length_hours, row.slack_hours, row.interruptible ? "yes" : "no",
        row.mean_grams_per_kwh, row.reduction_grams_per_kwh,
        row.oracle_saving_share ? absl::StrFormat("%.1f%%", 100 * *row.oracle_saving_share) : "-");
  }
}

void WriteTemporalCsv(const std::vector<TemporalRow>& rows, std::ostream& out) {
  const bool limits = WithLimits(rows);
  out << (limits ? kBothCsvHeader : kTemporalCsvHeader) << "\n";
  for (const TemporalRow& row : rows) {
    out << absl::StrFormat(
        "%s,%s,%s%d,%d,%s,%.3f,%.3f,%s\n", TemporalPolicyName(row.policy), row.group,
        limits ? absl::StrCat(row.max_rtt_ms.value_or(0), ",") : "", row.job_length_hours,
        row.slack_hours, row.interruptible ? "yes" : "no", row.mean_grams_per_kwh,
        row.reduction_grams_per_kwh,
        row.oracle_saving_share ? absl::StrFormat("%.4f", *row.oracle_saving_share) : "");
  }
}

void WriteTemporalJson(const std::vector<TemporalRow>& rows, std::size_t zones,
                       const simulator::TemporalOptions& options, std::ostream& out) {
  nlohmann::ordered_json json;
  json["shift"] = WithLimits(rows) ? "both" : "time";
  json["zones"] = zones;
  json["forecast"] = options.forecast.ToString();
  json["forecast_horizon_hours"] = options.forecast_horizon_hours;
  json["rows"] = nlohmann::json::array();
  for (const TemporalRow& row : rows) {
    nlohmann::ordered_json r;
    r["policy"] = TemporalPolicyName(row.policy);
    r["group"] = row.group;
    if (row.max_rtt_ms) r["max_rtt_ms"] = *row.max_rtt_ms;
    r["job_length_hours"] = row.job_length_hours;
    r["slack_hours"] = row.slack_hours;
    r["interruptible"] = row.interruptible;
    r["mean_grams_per_kwh"] = row.mean_grams_per_kwh;
    r["reduction_grams_per_kwh"] = row.reduction_grams_per_kwh;
    r["oracle_saving_share"] =
        row.oracle_saving_share ? nlohmann::json(*row.oracle_saving_share) : nlohmann::json();
    json["rows"].push_back(std::move(r));
  }
  out << json.dump(2) << "\n";
}

absl::Status PlotTemporal(const std::vector<TemporalRow>& rows, const std::string& path) {
  if (rows.empty()) return absl::InvalidArgumentError("--plot: no rows to plot");
  const std::string& group = rows.front().group;
  const std::optional<double> limit = rows.front().max_rtt_ms;
  // interruptible → job length → slack → the oracle's reduction.
  std::map<bool, std::map<int, std::map<int, double>>> reductions;
  for (const TemporalRow& row : rows) {
    if (row.group != group || row.max_rtt_ms != limit || row.policy != TemporalPolicy::kOracle) {
      continue;
    }
    reductions[row.interruptible][row.job_length_hours][row.slack_hours] =
        row.reduction_grams_per_kwh;
  }
  std::map<std::string, std::string> data;
  std::string script = absl::StrCat(
      "set multiplot layout 1,", reductions.size(), " title ",
      GnuplotQuoted(absl::StrCat(
          limit ? "What waiting and moving save at best (" : "What waiting saves at best (", group,
          limit ? absl::StrCat(", within ", *limit, " ms") : "",
          "): the oracle's reduction against the slack")),
      "\nset xlabel 'slack (hours)'\nset ylabel 'gCO2eq/kWh below running at once'\n",
      "set logscale x\nset grid\nset key top left\nset yrange [0:*]\n");
  for (const auto& [interruptible, by_length] : reductions) {
    absl::StrAppend(&script, "set title ",
                    GnuplotQuoted(interruptible ? "interruptible" : "not interruptible"),
                    "\nplot ");
    bool first = true;
    for (const auto& [length, by_slack] : by_length) {
      const std::string name = absl::StrCat(interruptible ? "split-" : "whole-", length, ".dat");
      std::string& file = data[name];
      for (const auto& [slack, reduction] : by_slack) {
        absl::StrAppend(&file, std::max(slack, 1), " ", reduction, "\n");
      }
      absl::StrAppend(&script, first ? "" : ", ", GnuplotQuoted("$DIR/" + name),
                      " using 1:2 with linespoints linewidth 2 title ",
                      GnuplotQuoted(absl::StrCat(length, " h job")));
      first = false;
    }
    absl::StrAppend(&script, "\n");
  }
  absl::StrAppend(&script, "unset multiplot\n");
  return DrawWithGnuplot(path, 420 * static_cast<int>(reductions.size()) + 80, 440, data, script);
}

}  // namespace carbonroute::scheduler_lite
