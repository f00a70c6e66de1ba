#include "output/simulation_output.h"

#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "output/gnuplot_plot.h"

namespace carbonroute::scheduler_lite {

using simulator::PolicyName;
using simulator::SimulationOptions;
using simulator::SimulationResult;
using simulator::SimulationRow;
using simulator::SimulationSite;
using simulator::SiteTopology;
using simulator::SkippedSite;
namespace {

// The share of the oracle's saving as a ratio (CSV) or a percentage (table).
std::string ShareRatio(const SimulationRow& row) {
  return row.oracle_saving_share ? absl::StrFormat("%.4f", *row.oracle_saving_share) : "";
}
std::string SharePercent(const SimulationRow& row) {
  return row.oracle_saving_share ? absl::StrFormat("%.1f%%", 100 * *row.oracle_saving_share) : "-";
}

}  // namespace

void WriteSimulationTable(const SimulationResult& result, std::ostream& out) {
  out << absl::StrFormat("%-12s %9s %7s %14s %9s %14s %12s\n", "POLICY", "MAX RTT", "IDLE",
                         "MEAN gCO2/kWh", "SAVING", "OF ORACLE'S", "MEAN RTT");
  int idle = -1;
  for (const SimulationRow& row : result.rows) {
    if (row.idle_percent != idle && idle != -1) out << "\n";
    idle = row.idle_percent;
    out << absl::StrFormat("%-12s %6g ms %6d%% %14.1f %8.1f%% %14s %9.1f ms\n",
                           PolicyName(row.policy), row.max_rtt_ms, row.idle_percent,
                           row.mean_grams_per_kwh, row.saving_percent, SharePercent(row),
                           row.mean_rtt_ms);
  }
}

void WriteReplacementTable(const std::vector<simulator::ReplacementRow>& rows, std::ostream& out) {
  out << absl::StrFormat("%-9s %8s %10s %8s %9s %9s %10s %9s %12s\n", "group", "max_rtt",
                         "tolerance", "restart", "local", "bind", "rebalance", "extra",
                         "moves/day");
  out << absl::StrFormat("%-9s %8s %10s %8s %9s %9s %10s %9s %12s\n", "", "ms", "gCO2/kWh", "min",
                         "gCO2/kWh", "gCO2/kWh", "gCO2/kWh", "saving", "per workload");
  for (const simulator::ReplacementRow& row : rows) {
    out << absl::StrFormat("%-9s %8g %10g %8g %9.1f %9.1f %10.1f %8.2f%% %12.3f\n", row.group,
                           row.max_rtt_ms, row.tolerance, row.restart_minutes, row.local_mean,
                           row.bind_mean, row.rebalance_mean, row.extra_saving_percent,
                           row.moves_per_workload_day);
  }
}

void WriteReplacementCsv(const std::vector<simulator::ReplacementRow>& rows, std::ostream& out) {
  out << "group,max_rtt_ms,tolerance_g_per_kwh,restart_minutes,services,workload_days,local_mean,"
         "bind_mean,rebalance_mean,extra_saving_percent,moves_per_workload_day\n";
  for (const simulator::ReplacementRow& row : rows) {
    out << absl::StrFormat("%s,%g,%g,%g,%d,%.1f,%.3f,%.3f,%.3f,%.3f,%.4f\n", row.group,
                           row.max_rtt_ms, row.tolerance, row.restart_minutes, row.services,
                           row.workload_days, row.local_mean, row.bind_mean, row.rebalance_mean,
                           row.extra_saving_percent, row.moves_per_workload_day);
  }
}

void WriteReplacementJson(const std::vector<simulator::ReplacementRow>& rows, std::ostream& out) {
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  for (const simulator::ReplacementRow& row : rows) {
    json.push_back({{"group", row.group},
                    {"max_rtt_ms", row.max_rtt_ms},
                    {"tolerance_g_per_kwh", row.tolerance},
                    {"restart_minutes", row.restart_minutes},
                    {"services", row.services},
                    {"workload_days", row.workload_days},
                    {"local_mean", row.local_mean},
                    {"bind_mean", row.bind_mean},
                    {"rebalance_mean", row.rebalance_mean},
                    {"extra_saving_percent", row.extra_saving_percent},
                    {"moves_per_workload_day", row.moves_per_workload_day}});
  }
  out << json.dump(2) << "\n";
}

void WriteSimulationCsv(const SimulationResult& result, std::ostream& out) {
  out << kSimulationCsvHeader << "\n";
  for (const SimulationRow& row : result.rows) {
    out << absl::StrFormat("%s,%g,%d,%.3f,%.3f,%s,%.3f\n", PolicyName(row.policy), row.max_rtt_ms,
                           row.idle_percent, row.mean_grams_per_kwh, row.saving_percent,
                           ShareRatio(row), row.mean_rtt_ms);
  }
}

void WriteSimulationJson(const SiteTopology& topology, const SimulationOptions& options,
                         const SimulationResult& result, std::ostream& out) {
  nlohmann::ordered_json json;
  json["runtime_hours"] = options.runtime_hours;
  json["forecast"] = options.forecast.ToString();
  json["periods"] = result.periods;
  json["sites"] = nlohmann::json::array();
  for (const SimulationSite& site : topology.sites) json["sites"].push_back(site.zone);
  json["skipped_sites"] = nlohmann::json::array();
  for (const SkippedSite& site : topology.skipped) json["skipped_sites"].push_back(site.zone);
  json["rows"] = nlohmann::json::array();
  for (const SimulationRow& row : result.rows) {
    nlohmann::ordered_json r;
    r["policy"] = PolicyName(row.policy);
    r["max_rtt_ms"] = row.max_rtt_ms;
    r["idle_capacity_percent"] = row.idle_percent;
    r["mean_grams_per_kwh"] = row.mean_grams_per_kwh;
    r["saving_percent"] = row.saving_percent;
    r["oracle_saving_share"] =
        row.oracle_saving_share ? nlohmann::ordered_json(*row.oracle_saving_share) : nullptr;
    r["mean_rtt_ms"] = row.mean_rtt_ms;
    json["rows"].push_back(std::move(r));
  }
  out << json.dump(2) << "\n";
}

absl::Status PlotSimulation(const SimulationResult& result, const std::string& path) {
  // idle level → limit → policy → mean, all in the rows' order.
  std::vector<int> idles;
  std::vector<std::string> policies;
  std::map<int, std::map<double, std::vector<double>>> means;
  for (const SimulationRow& row : result.rows) {
    if (std::find(idles.begin(), idles.end(), row.idle_percent) == idles.end()) {
      idles.push_back(row.idle_percent);
    }
    const std::string name(PolicyName(row.policy));
    if (std::find(policies.begin(), policies.end(), name) == policies.end()) {
      policies.push_back(name);
    }
    means[row.idle_percent][row.max_rtt_ms].push_back(row.mean_grams_per_kwh);
  }
  std::map<std::string, std::string> data;
  std::string script =
      absl::StrCat("set multiplot layout 1,", idles.size(),
                   " title 'Load-weighted mean carbon intensity against the latency limit'\n",
                   "set xlabel 'latency limit (ms)'\nset ylabel 'gCO2eq/kWh'\nset grid\n",
                   "set key bottom left\nset yrange [0:*]\n");
  // One latency limit is one x: gnuplot would warn "empty x range" and pick a range itself.
  std::set<double> limits;
  for (const SimulationRow& row : result.rows) limits.insert(row.max_rtt_ms);
  if (limits.size() == 1) {
    const double limit = *limits.begin();
    const double pad = std::max(1.0, limit * 0.1);
    absl::StrAppend(&script, "set xrange [", limit - pad, ":", limit + pad, "]\n");
  }
  for (int idle : idles) {
    const std::string name = absl::StrCat("idle-", idle, ".dat");
    std::string& file = data[name];
    for (const auto& [limit, values] : means[idle]) {
      absl::StrAppend(&file, limit);
      for (double value : values) absl::StrAppend(&file, " ", value);
      absl::StrAppend(&file, "\n");
    }
    absl::StrAppend(&script, "set title 'idle capacity ", idle, "%'\nplot ");
    for (std::size_t p = 0; p < policies.size(); ++p) {
      absl::StrAppend(&script, p == 0 ? "" : ", ", GnuplotQuoted("$DIR/" + name),
                      " using 1:", p + 2, " with linespoints linewidth 2 title ",
                      GnuplotQuoted(policies[p]));
    }
    absl::StrAppend(&script, "\n");
  }
  absl::StrAppend(&script, "unset multiplot\n");
  return DrawWithGnuplot(path, 420 * static_cast<int>(idles.size()) + 80, 440, data, script);
}

}  // namespace carbonroute::scheduler_lite
