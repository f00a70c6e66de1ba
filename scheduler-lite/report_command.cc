#include "scheduler-lite/report_command.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/duration_text.h"
#include "base/status_macros.h"
#include "base/utc_time.h"
#include "ledger/ledger.h"
#include "output/gnuplot_plot.h"
#include "scheduler-lite/command_flags.h"

namespace carbonroute::scheduler_lite {

using ledger::LedgerReport;
using ledger::LedgerReportRow;

namespace {

constexpr absl::Duration kQueryTimeout = absl::Seconds(30);

// "30d", "2w" or "12h": the one duration syntax (base/duration_text.h).
absl::Duration SinceFlag(const std::string& text) {
  const std::optional<absl::Duration> d = ParseDurationText(text);
  if (d && *d > absl::ZeroDuration()) return *d;
  throw CLI::ValidationError(
      "--since", "expected a positive duration such as 30d, 2w or 12h, got \"" + text + "\"");
}

// --plot's buckets: a day each, or an hour each when the range is under two days.
absl::Duration PlotBucket(absl::Duration since) {
  return since >= absl::Hours(48) ? absl::Hours(24) : absl::Hours(1);
}
constexpr absl::Duration kLongestPlot = absl::Hours(24 * 366);

std::string Ms(const std::optional<absl::Duration>& rtt) {
  return rtt ? absl::StrFormat("%.1f", absl::ToDoubleMilliseconds(*rtt)) : "";
}

// The shortest text that reads back as the same double (std::to_chars): CSV and JSON keep
// every digit the ledger has; only the table rounds, for people.
std::string RoundTrip(double value) {
  char text[32];
  const std::to_chars_result end = std::to_chars(text, text + sizeof(text), value);
  return std::string(text, end.ptr);
}
std::string RoundTrip(const std::optional<double>& value) { return value ? RoundTrip(*value) : ""; }
std::string RoundTripMs(const std::optional<absl::Duration>& rtt) {
  return rtt ? RoundTrip(absl::ToDoubleMilliseconds(*rtt)) : "";
}

std::string Share(const LedgerReportRow& row) {
  const std::optional<double> share = row.saving_share();
  return share ? absl::StrFormat("%.1f", 100 * *share) : "";
}

void TableRow(const LedgerReportRow& row, std::ostream& out) {
  const std::string share = Share(row);
  const std::string rtt =
      row.chosen_origin_rtt
          ? absl::StrCat(Ms(row.chosen_origin_rtt), " / ", Ms(row.counterfactual_origin_rtt), " ms")
          : "-";
  out << absl::StrFormat("%-20s %-8s %-8s %9.0f %11.4f %12.2f %12.2f %+10.2f %7s %s\n", row.group,
                         row.mode, row.emissions_type, row.decisions,
                         row.energy_joules / ledger::kJoulesPerKwh, row.chosen_grams,
                         row.counterfactual_grams, row.saving_grams(),
                         share.empty() ? "-" : absl::StrCat(share, "%"), rtt);
}

nlohmann::ordered_json JsonRow(const LedgerReportRow& row) {
  nlohmann::ordered_json json = {{"group", row.group},
                                 {"mode", row.mode},
                                 {"emissions_type", row.emissions_type},
                                 {"decisions", row.decisions},
                                 {"energy_kwh", row.energy_joules / ledger::kJoulesPerKwh},
                                 {"chosen_grams", row.chosen_grams},
                                 {"counterfactual_grams", row.counterfactual_grams},
                                 {"saving_grams", row.saving_grams()}};
  json["saving_share"] = row.saving_share() ? nlohmann::ordered_json(*row.saving_share())
                                            : nlohmann::ordered_json(nullptr);
  if (row.chosen_origin_rtt) {
    json["chosen_origin_rtt_ms"] = absl::ToDoubleMilliseconds(*row.chosen_origin_rtt);
  }
  if (row.counterfactual_origin_rtt) {
    json["counterfactual_origin_rtt_ms"] =
        absl::ToDoubleMilliseconds(*row.counterfactual_origin_rtt);
  }
  return json;
}

class ReportSubcommand final : public Subcommand {
 public:
  const char* name() const override { return "report"; }
  const char* description() const override {
    return "what carbonroute's decisions saved: the savings ledger read from Prometheus";
  }
  void AddFlags(CLI::App& cmd) override {
    cmd.add_option("--prometheus", request_.prometheus,
                   "Prometheus base URL that scrapes the controllers' /metrics")
        ->required();
    cmd.add_option("--since", since_, "the range's length, ending at --until (30d, 2w, 12h)")
        ->capture_default_str();
    cmd.add_option("--until", until_, "the range's end: RFC 3339 (2026-11-28T00:00:00Z) or now")
        ->capture_default_str();
    cmd.add_option("--by", request_.by, "one row per namespace or per controller")
        ->check(CLI::IsMember({"namespace", "controller"}))
        ->capture_default_str();
    cmd.add_option("--format", request_.format,
                   "table (rounded for people), csv or json (every digit: the shortest text that "
                   "reads back the same number)")
        ->check(CLI::IsMember({"table", "csv", "json"}))
        ->capture_default_str();
    cmd.add_option("--plot", request_.plot,
                   "also draw the saving per day (per hour under 2 days) into FILE (.svg or .png; "
                   "needs gnuplot)");
    client_.AddTo(cmd);
    cmd.footer(
        "Each controller books its decisions against its own counterfactual (docs/savings.md): "
        "serve, the mean intensity of the Nodes kube-scheduler offered a Pod; hold, the object "
        "run at once; karmada --controller, the replicas in equal shares over the policy's "
        "clusters; route --controller, the mesh's default weights; rebalance --controller, the "
        "moved Pod staying where it was (its restart counted as a loss). Shadow rows (serve "
        "--shadow, "
        "--dry-run) book what carbonroute would have done against what really ran. Energy is "
        "what Kepler or DCGM measured where the booking controller reads it, else requests "
        "through that controller's power model (its --watts-per-cpu/-gb/-gpu, not report's).");
  }
  void Validate() override {
    request_.since = SinceFlag(since_);
    if (!request_.plot.empty() && !IsPlotPath(request_.plot)) {
      throw CLI::ValidationError("--plot", "\"" + request_.plot + "\" must end in .svg or .png");
    }
    if (!request_.plot.empty() && request_.since > kLongestPlot) {
      throw CLI::ValidationError("--plot", "plots at most 366 days, --since is \"" + since_ + "\"");
    }
    if (until_ != "now") {
      absl::Time until;
      std::string error;
      if (!absl::ParseTime(absl::RFC3339_full, until_, &until, &error)) {
        throw CLI::ValidationError(
            "--until", "expected RFC 3339 (2026-11-28T00:00:00Z) or now, got \"" + until_ + "\"");
      }
      request_.until = until;
    }
    request_.auth = client_.auth();
  }
  int Run(ProgramContext& c) override {
    return ReportCommand(request_, c.http, c.clock, c.out, c.err);
  }

 private:
  ReportRequest request_;
  std::string since_ = "30d";
  std::string until_ = "now";
  ClientFlags client_;
};

}  // namespace

void WriteReportTable(const LedgerReport& report, const ReportRequest& request, absl::Time until,
                      std::ostream& out) {
  out << "savings ledger from " << UtcSeconds(until - request.since) << " to " << UtcSeconds(until)
      << " (saving = counterfactual - chosen; negative: a loss)\n";
  out << absl::StrFormat("%-20s %-8s %-8s %9s %11s %12s %12s %10s %7s %s\n",
                         absl::AsciiStrToUpper(request.by), "MODE", "TYPE", "DECISIONS",
                         "ENERGY kWh", "CHOSEN g", "COUNTERF. g", "SAVING g", "SHARE",
                         "RTT FROM ORIGIN (chosen / counterf.)");
  for (const LedgerReportRow& row : report.rows) TableRow(row, out);
  if (!report.totals.empty()) out << "\n";
  for (const LedgerReportRow& row : report.totals) TableRow(row, out);
  bool shadow = false;
  for (const LedgerReportRow& row : report.totals) shadow |= row.mode == "shadow";
  if (shadow) {
    out << "\nshadow rows: what carbonroute would have saved had it decided (--dry-run, serve "
           "--shadow), an estimate; serve --shadow's may be too high (inter-Pod affinity, "
           "topology spread and volume zones are not simulated)\n";
  }
  if (!report.skipped.empty()) {
    out << "\nintervals left out of both bases (never counted as 0):\n";
    for (const ledger::LedgerSkipped& skipped : report.skipped) {
      out << absl::StrFormat("  %-10s %-8s %-22s %.0f\n", skipped.controller,
                             skipped.emissions_type, skipped.reason, skipped.intervals);
    }
  }
}

void WriteReportCsv(const LedgerReport& report, const ReportRequest& request, std::ostream& out) {
  out << request.by
      << ",mode,emissions_type,decisions,energy_kwh,chosen_grams,counterfactual_grams,"
         "saving_grams,saving_share,chosen_origin_rtt_ms,counterfactual_origin_rtt_ms\n";
  for (const auto* rows : {&report.rows, &report.totals}) {
    for (const LedgerReportRow& row : *rows) {
      out << absl::StrJoin(
                 {row.group, row.mode, row.emissions_type, RoundTrip(row.decisions),
                  RoundTrip(row.energy_joules / ledger::kJoulesPerKwh), RoundTrip(row.chosen_grams),
                  RoundTrip(row.counterfactual_grams), RoundTrip(row.saving_grams()),
                  RoundTrip(row.saving_share()), RoundTripMs(row.chosen_origin_rtt),
                  RoundTripMs(row.counterfactual_origin_rtt)},
                 ",")
          << "\n";
    }
  }
}

void WriteReportJson(const LedgerReport& report, const ReportRequest& request, absl::Time until,
                     std::ostream& out) {
  nlohmann::ordered_json json = {{"from", UtcSeconds(until - request.since)},
                                 {"until", UtcSeconds(until)},
                                 {"by", request.by}};
  json["rows"] = nlohmann::ordered_json::array();
  for (const LedgerReportRow& row : report.rows) json["rows"].push_back(JsonRow(row));
  json["totals"] = nlohmann::ordered_json::array();
  for (const LedgerReportRow& row : report.totals) json["totals"].push_back(JsonRow(row));
  json["skipped"] = nlohmann::ordered_json::array();
  for (const ledger::LedgerSkipped& skipped : report.skipped) {
    json["skipped"].push_back({{"controller", skipped.controller},
                               {"emissions_type", skipped.emissions_type},
                               {"reason", skipped.reason},
                               {"intervals", skipped.intervals}});
  }
  out << json.dump(2) << "\n";
}

absl::StatusOr<SavingSeries> QuerySavingSeries(const ReportRequest& request, absl::Time until,
                                               net::HttpClient& http) {
  const absl::Duration bucket = PlotBucket(request.since);
  SavingSeries series;
  for (absl::Time from = until - request.since; from < until; from += bucket) {
    const absl::Time end = std::min(from + bucket, until);
    std::vector<model_sources::Sample> samples;
    CARBONROUTE_RETURN_IF_ERROR(model_sources::QueryInstant(
        http, request.prometheus,
        ledger::LedgerPromQl(ledger::LedgerQuery::kEmissions, "controller", end - from),
        kQueryTimeout, request.auth, samples, end));
    std::vector<ledger::LedgerIncrease> increases;
    for (model_sources::Sample& sample : samples) {
      increases.push_back(
          {ledger::LedgerQuery::kEmissions, std::move(sample.labels), sample.value});
    }
    for (const LedgerReportRow& total : ledger::BuildLedgerReport(increases, "controller").totals) {
      series[absl::StrCat(total.mode, " ", total.emissions_type)][absl::ToUnixSeconds(end)] =
          total.saving_grams();
    }
  }
  return series;
}

absl::Status PlotSavings(const SavingSeries& series, const ReportRequest& request,
                         absl::Time until) {
  if (series.empty()) return absl::NotFoundError("--plot: no saving to plot in the range");
  const absl::Duration bucket = PlotBucket(request.since);
  const bool daily = bucket == absl::Hours(24);
  std::string script =
      absl::StrCat("set title ",
                   GnuplotQuoted(absl::StrCat("What carbonroute saved per ", daily ? "day" : "hour",
                                              ", ", UtcSeconds(until - request.since), " to ",
                                              UtcSeconds(until), " (below 0: a loss)")),
                   "\nset xdata time\nset timefmt '%s'\nset format x '", daily ? "%m-%d" : "%H:%M",
                   "'\nset xlabel 'end of the ", daily ? "day" : "hour",
                   " (UTC)'\nset ylabel 'saving (gCO2eq)'\nset grid\nset xzeroaxis linewidth 2\n"
                   "set key below\nplot ");
  std::map<std::string, std::string> data;
  int index = 0;
  for (const auto& [name, points] : series) {
    const std::string file = absl::StrCat("saving-", index, ".dat");
    for (const auto& [end, grams] : points) absl::StrAppend(&data[file], end, " ", grams, "\n");
    absl::StrAppend(
        &script, index == 0 ? "" : ", ", GnuplotQuoted("$DIR/" + file),
        " using 1:2 with linespoints linewidth 2 title ",
        GnuplotQuoted(absl::StartsWith(name, "shadow") ? name + " (an estimate)" : name));
    ++index;
  }
  return DrawWithGnuplot(request.plot, 900, 480, data, script + "\n");
}

int ReportCommand(const ReportRequest& request, net::HttpClient& http, Clock& clock,
                  std::ostream& out, std::ostream& err) {
  const absl::Time until = request.until.value_or(clock.Now());
  std::vector<ledger::LedgerIncrease> increases;
  for (ledger::LedgerQuery query : ledger::kLedgerQueries) {
    std::vector<model_sources::Sample> samples;
    const absl::Status queried = model_sources::QueryInstant(
        http, request.prometheus, ledger::LedgerPromQl(query, request.by, request.since),
        kQueryTimeout, request.auth, samples, until);
    if (!queried.ok()) {
      // A 404 on Prometheus' query API is not a query Prometheus refused (that is a 400 with
      // its reason) but a server without that API: most often a collector's URL.
      if (absl::StrContains(queried.message(), " answered HTTP 404")) {
        err << "scheduler-lite report: --prometheus " << request.prometheus
            << ": its /api/v1/query answered HTTP 404: not a Prometheus server (a collector's "
               "/metrics is what Prometheus scrapes; give the Prometheus that scrapes the "
               "controllers)\n";
        return 1;
      }
      err << "scheduler-lite report: " << queried.message() << "\n";
      return 1;
    }
    for (model_sources::Sample& sample : samples) {
      increases.push_back({query, std::move(sample.labels), sample.value});
    }
  }
  const LedgerReport report = ledger::BuildLedgerReport(increases, request.by);
  if (report.empty()) {
    err << "scheduler-lite report: no ledger series between " << UtcSeconds(until - request.since)
        << " and " << UtcSeconds(until) << " in " << request.prometheus
        << ": does it scrape a controller that books in the ledger (serve, hold, "
           "karmada --controller, route --controller, rebalance --controller: their /metrics)?\n";
    return 3;
  }
  if (request.format == "json") {
    WriteReportJson(report, request, until, out);
  } else if (request.format == "csv") {
    WriteReportCsv(report, request, out);
  } else {
    WriteReportTable(report, request, until, out);
  }
  if (request.plot.empty()) return 0;
  absl::StatusOr<SavingSeries> series = QuerySavingSeries(request, until, http);
  const absl::Status plotted = series.ok() ? PlotSavings(*series, request, until) : series.status();
  if (!plotted.ok()) {
    err << "scheduler-lite report: " << plotted.message() << "\n";
    return 1;
  }
  err << "scheduler-lite report: plot written to " << request.plot << "\n";
  return 0;
}

std::unique_ptr<Subcommand> NewReportSubcommand() { return std::make_unique<ReportSubcommand>(); }

}  // namespace carbonroute::scheduler_lite
