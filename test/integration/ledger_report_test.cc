// `scheduler-lite report` against a real Prometheus holding a day's ledger
// counters, backfilled with promtool (an injected clock cannot drive
// Prometheus): the figures are computed by hand below.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "base/utc_time.h"
#include "net/curl_http_client.h"
#include "scheduler-lite/report_command.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/prometheus_process.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

struct LedgerSeries {
  std::string metric;  // without _total
  std::string labels;
  double end;  // its value at the range's end; it grows evenly from 0
};

// Two hours of the ledger, a sample every 15 minutes from `start`:
//   shop  (enforced): 4 decisions, 0.5 kWh, chosen 100 g against 150 g: saving 50 g (33.3 %),
//                     RTT from origin 0.12 s / 4 accruals = 30 ms chosen, 12 ms counterfactual;
//   batch (enforced): chosen 120 g against 100 g: a loss of 20 g (−20 %);
//   lab   (shadow):   chosen 10 g against 40 g: 30 g (75 %) had it decided;
//   enforced total:   220 g against 250 g: 30 g (12 %); 2 intervals skipped, unknown_intensity.
std::string LedgerOpenMetrics(absl::Time start) {
  const std::string base = R"(controller="karmada",emissions_type="average",)";
  const std::vector<LedgerSeries> series = {
      {"carbonroute_ledger_decisions", base + R"(namespace="shop",mode="enforced",outcome="moved")",
       4},
      {"carbonroute_ledger_energy_joules",
       base + R"(namespace="shop",mode="enforced",energy_source="model")", 1.8e6},
      {"carbonroute_ledger_emissions_grams",
       base + R"(namespace="shop",mode="enforced",basis="chosen")", 100},
      {"carbonroute_ledger_emissions_grams",
       base + R"(namespace="shop",mode="enforced",basis="counterfactual")", 150},
      {"carbonroute_ledger_origin_rtt_seconds",
       base + R"(namespace="shop",mode="enforced",basis="chosen")", 0.12},
      {"carbonroute_ledger_origin_rtt_seconds",
       base + R"(namespace="shop",mode="enforced",basis="counterfactual")", 0.048},
      {"carbonroute_ledger_origin_rtt_accruals",
       base + R"(namespace="shop",mode="enforced",basis="chosen")", 4},
      {"carbonroute_ledger_origin_rtt_accruals",
       base + R"(namespace="shop",mode="enforced",basis="counterfactual")", 4},
      {"carbonroute_ledger_emissions_grams",
       base + R"(namespace="batch",mode="enforced",basis="chosen")", 120},
      {"carbonroute_ledger_emissions_grams",
       base + R"(namespace="batch",mode="enforced",basis="counterfactual")", 100},
      {"carbonroute_ledger_emissions_grams",
       base + R"(namespace="lab",mode="shadow",basis="chosen")", 10},
      {"carbonroute_ledger_emissions_grams",
       base + R"(namespace="lab",mode="shadow",basis="counterfactual")", 40},
      {"carbonroute_ledger_intervals_skipped",
       R"(controller="karmada",emissions_type="average",reason="unknown_intensity")", 2},
  };
  std::string text;
  std::string typed;
  for (const LedgerSeries& s : series) {
    if (typed != s.metric) absl::StrAppend(&text, "# TYPE ", s.metric, " counter\n");
    typed = s.metric;
    for (int step = 0; step <= 8; ++step) {
      absl::StrAppend(&text, s.metric, "_total{", s.labels, "} ", s.end * step / 8, " ",
                      absl::ToUnixSeconds(start + step * absl::Minutes(15)), "\n");
    }
  }
  return text + "# EOF\n";
}

TEST(LedgerReport, ReadsTheSavingLossesIncludedFromARealPrometheus) {
  ASSERT_TRUE(std::filesystem::exists(testing::kPrometheusBinary))
      << "install Debian's prometheus package (./scripts/test does)";
  testing::ScopedTempDir dir;
  // Three hours ago, on the hour: inside Prometheus' retention, outside its head block.
  const absl::Time start =
      absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()) / 3600 * 3600) - absl::Hours(3);
  const absl::Time end = start + absl::Hours(2);
  { std::ofstream(dir.File("ledger.om")) << LedgerOpenMetrics(start); }
  const testing::ShellRun backfill =
      testing::Shell(absl::StrCat("promtool tsdb create-blocks-from openmetrics ",
                                  dir.File("ledger.om"), " ", dir.File("tsdb"), " 2>&1"));
  ASSERT_EQ(backfill.exit_code, 0) << backfill.output;
  std::unique_ptr<testing::Subprocess> prometheus = testing::StartPrometheus(dir.path(), 0, {});
  const int port = testing::PrometheusPort(*prometheus);
  ASSERT_GT(port, 0) << prometheus->Log();
  ASSERT_EQ(testing::WaitForSeries(
                port, "last_over_time(carbonroute_ledger_emissions_grams_total[6h])", 6)
                .size(),
            6u);

  const std::string report = absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY,
                                          " report --prometheus http://127.0.0.1:", port,
                                          " --since 2h --until ", UtcSeconds(end));
  const testing::ShellRun csv = testing::Shell(report + " --format csv 2>&1");
  ASSERT_EQ(csv.exit_code, 0) << csv.output;
  EXPECT_EQ(csv.output,
            "namespace,mode,emissions_type,decisions,energy_kwh,chosen_grams,counterfactual_grams,"
            "saving_grams,saving_share,chosen_origin_rtt_ms,counterfactual_origin_rtt_ms\n"
            // Every digit the ledger has (the shortest text that reads back the same double):
            // a third is a third, not 0.3333.
            "batch,enforced,average,0,0,120,100,-20,-0.2,,\n"
            "lab,shadow,average,0,0,10,40,30,0.75,,\n"
            "shop,enforced,average,4,0.5,100,150,50,0.3333333333333333,30,12\n"
            "total,enforced,average,4,0.5,220,250,30,0.12,30,12\n"
            "total,shadow,average,0,0,10,40,30,0.75,,\n");
  // --since in weeks, as Prometheus writes durations: the same two hours of 2w's range.
  const testing::ShellRun weeks = testing::Shell(absl::StrCat(
      CARBONROUTE_SCHEDULER_LITE_BINARY, " report --prometheus http://127.0.0.1:", port,
      " --since 2w --until ", UtcSeconds(end), " --format csv 2>&1"));
  EXPECT_EQ(weeks.exit_code, 0) << weeks.output;
  EXPECT_EQ(weeks.output, csv.output);

  const testing::ShellRun table = testing::Shell(report + " 2>&1");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_THAT(table.output, HasSubstr("-20.00"));  // a loss is shown as a loss
  EXPECT_THAT(table.output, HasSubstr("-20.0%"));
  EXPECT_THAT(table.output, HasSubstr("30.0 / 12.0 ms"));
  EXPECT_THAT(table.output, HasSubstr("shadow rows: what carbonroute would have saved"));
  EXPECT_THAT(table.output, HasSubstr("unknown_intensity      2"));
  // docs/savings.md "Reading the first report" shows this table as report prints it, its
  // range's two times written as they are there.
  const std::string docs =
      testing::ReadFile(std::string(CARBONROUTE_SOURCE_DIR) + "/docs/savings.md");
  const std::string begin = "<!-- report's table, checked by ledger_report_test -->\n```text\n";
  ASSERT_NE(docs.find(begin), std::string::npos);
  const size_t from = docs.find(begin) + begin.size();
  EXPECT_EQ(docs.substr(from, docs.find("```\n", from) - from),
            absl::StrReplaceAll(table.output, {{UtcSeconds(start), "2026-11-24T10:00:00Z"},
                                               {UtcSeconds(end), "2026-11-24T12:00:00Z"}}));

  const testing::ShellRun json = testing::Shell(report + " --by controller --format json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const nlohmann::json parsed = nlohmann::json::parse(json.output);
  ASSERT_EQ(parsed["rows"].size(), 2u);  // karmada enforced, karmada shadow
  EXPECT_EQ(parsed["rows"][0]["group"], "karmada");
  EXPECT_DOUBLE_EQ(parsed["rows"][0]["saving_grams"].get<double>(), 30);
  EXPECT_EQ(parsed["skipped"][0]["reason"], "unknown_intensity");

  // --plot: per hour (the range is 2 h), the totals' savings, evenly spread: enforced
  // (150 − 100) + (100 − 120) = 30 g and shadow 40 − 10 = 30 g over two hours, 15 g in each.
  scheduler_lite::ReportRequest request{.prometheus = absl::StrCat("http://127.0.0.1:", port),
                                        .since = absl::Hours(2)};
  std::unique_ptr<net::HttpClient> http = *net::CurlHttpClient::Create("ledger-report-test");
  absl::StatusOr<scheduler_lite::SavingSeries> series =
      scheduler_lite::QuerySavingSeries(request, end, *http);
  ASSERT_TRUE(series.ok()) << series.status();
  const int64_t first_hour = absl::ToUnixSeconds(start + absl::Hours(1));
  const int64_t second_hour = absl::ToUnixSeconds(end);
  for (const char* name : {"enforced average", "shadow average"}) {
    EXPECT_THAT((*series)[name], ElementsAre(Pair(first_hour, DoubleNear(15, 1e-9)),
                                             Pair(second_hour, DoubleNear(15, 1e-9))))
        << name;
  }
  EXPECT_EQ(series->size(), 2u);
  const testing::ShellRun plot =
      testing::Shell(report + " --format csv --plot " + dir.File("saving.svg") + " 2>&1");
  ASSERT_EQ(plot.exit_code, 0) << plot.output;
  EXPECT_THAT(plot.output, HasSubstr("plot written to " + dir.File("saving.svg")));
  std::stringstream svg;
  svg << std::ifstream(dir.File("saving.svg")).rdbuf();
  EXPECT_THAT(svg.str(), HasSubstr("What carbonroute saved per hour"));
  EXPECT_THAT(svg.str(), HasSubstr("shadow average (an estimate)"));

  // A range before any of it: nothing to report, exit 3 saying where it looked.
  const testing::ShellRun empty = testing::Shell(absl::StrCat(
      CARBONROUTE_SCHEDULER_LITE_BINARY, " report --prometheus http://127.0.0.1:", port,
      " --since 1h --until ", UtcSeconds(start - absl::Hours(5)), " 2>&1"));
  EXPECT_EQ(empty.exit_code, 3) << empty.output;
  EXPECT_THAT(empty.output, HasSubstr("no ledger series between"));
}

// A counter born inside the range counts from zero: a Pod decided once is one decision (its
// counter reads 1 from its first sample on), and a workload's first grams are not lost to
// increase(), which cannot see the step from "absent" to the first sample (it said 0 decisions
// and 11.25 of 15 grams here).
TEST(LedgerReport, ASeriesBornInsideTheRangeCountsFromZero) {
  ASSERT_TRUE(std::filesystem::exists(testing::kPrometheusBinary))
      << "install Debian's prometheus package (./scripts/test does)";
  testing::ScopedTempDir dir;
  const absl::Time start =
      absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()) / 3600 * 3600) - absl::Hours(3);
  const absl::Time end = start + absl::Hours(2);
  const std::string base =
      R"(controller="serve",emissions_type="average",namespace="late",mode="shadow",)";
  // name, labels, first sample's step (15 minutes each), its value, the growth per step.
  struct Born {
    const char* metric;
    std::string labels;
    int first_step;
    double first, growth;
  };
  const std::vector<Born> series = {
      {"carbonroute_ledger_decisions", base + R"(outcome="placed")", 3, 1, 0},
      {"carbonroute_ledger_emissions_grams", base + R"(basis="chosen")", 4, 5, 2.5},
      {"carbonroute_ledger_emissions_grams", base + R"(basis="counterfactual")", 4, 10, 5},
  };
  std::string text;
  for (const Born& s : series) {
    absl::StrAppend(&text, "# TYPE ", s.metric, " counter\n");
    for (int step = s.first_step; step <= 8; ++step) {
      absl::StrAppend(&text, s.metric, "_total{", s.labels, "} ",
                      s.first + s.growth * (step - s.first_step), " ",
                      absl::ToUnixSeconds(start + step * absl::Minutes(15)), "\n");
    }
  }
  // One metric family per name: the two emissions series under one TYPE line.
  text = absl::StrReplaceAll(
      text, {{"# TYPE carbonroute_ledger_emissions_grams counter\ncarbonroute_ledger_emissions_"
              "grams_total{controller=\"serve\",emissions_type=\"average\",namespace=\"late\","
              "mode=\"shadow\",basis=\"counterfactual\"",
              "carbonroute_ledger_emissions_grams_total{controller=\"serve\",emissions_type="
              "\"average\",namespace=\"late\",mode=\"shadow\",basis=\"counterfactual\""}});
  { std::ofstream(dir.File("born.om")) << text << "# EOF\n"; }
  const testing::ShellRun backfill =
      testing::Shell(absl::StrCat("promtool tsdb create-blocks-from openmetrics ",
                                  dir.File("born.om"), " ", dir.File("tsdb"), " 2>&1"));
  ASSERT_EQ(backfill.exit_code, 0) << backfill.output << text;
  std::unique_ptr<testing::Subprocess> prometheus = testing::StartPrometheus(dir.path(), 0, {});
  const int port = testing::PrometheusPort(*prometheus);
  ASSERT_GT(port, 0) << prometheus->Log();
  ASSERT_EQ(testing::WaitForSeries(
                port, "last_over_time(carbonroute_ledger_emissions_grams_total[6h])", 2)
                .size(),
            2u);
  const testing::ShellRun csv = testing::Shell(absl::StrCat(
      CARBONROUTE_SCHEDULER_LITE_BINARY, " report --prometheus http://127.0.0.1:", port,
      " --since 2h --until ", UtcSeconds(end), " --format csv 2>&1"));
  ASSERT_EQ(csv.exit_code, 0) << csv.output;
  EXPECT_EQ(csv.output,
            "namespace,mode,emissions_type,decisions,energy_kwh,chosen_grams,counterfactual_grams,"
            "saving_grams,saving_share,chosen_origin_rtt_ms,counterfactual_origin_rtt_ms\n"
            "late,shadow,average,1,0,15,30,15,0.5,,\n"
            "total,shadow,average,1,0,15,30,15,0.5,,\n");
}

// A collector's URL given as --prometheus (its /api/v1/query answers 404): said so, with no
// encoded query to read.
TEST(LedgerReport, AUrlThatIsNotAPrometheusIsNamedAsSuch) {
  testing::ScopedTempDir dir;
  testing::CollectorProcess collector = testing::StartCollector(
      dir.path(),
      "listen_address: 127.0.0.1:0\ndatabase: \":memory:\"\nnode: {name: n1, location: DE}\n"
      "providers: [{type: static, values: {DE: 380}}]\n");
  ASSERT_GT(collector.port, 0);
  const testing::ShellRun run = testing::Shell(
      absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY,
                   " report --prometheus http://127.0.0.1:", collector.port, " 2>&1"));
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output,
              HasSubstr("its /api/v1/query answered HTTP 404: not a Prometheus server"));
  EXPECT_THAT(run.output, ::testing::Not(HasSubstr("query=")));
}

// --help describes every controller that books, and names no option report does not take as
// one of its own.
TEST(LedgerReport, HelpNamesEveryControllerThatBooks) {
  const testing::ShellRun help =
      testing::Shell(absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY, " report --help 2>&1"));
  EXPECT_EQ(help.exit_code, 0);
  for (const char* controller :
       {"serve,", "hold,", "karmada --controller,", "route --controller,"}) {
    EXPECT_THAT(help.output, HasSubstr(controller));
  }
  EXPECT_THAT(help.output, HasSubstr("not report's"));
  EXPECT_THAT(help.output, ::testing::Not(HasSubstr("  --watts-per-cpu")));
}

TEST(LedgerReport, MistakesExitTwoNamingTheFlag) {
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"report", "--prometheus is required"},
           {"report --prometheus http://127.0.0.1:1 --since 3fortnights",
            "--since: expected a positive duration such as 30d, 2w or 12h, got \"3fortnights\""},
           {"report --prometheus http://127.0.0.1:1 --since 0w", "--since: expected a positive"},
           {"report --prometheus http://127.0.0.1:1 --until yesterday",
            "--until: expected RFC 3339"},
           {"report --prometheus http://127.0.0.1:1 --by pod", "--by"},
           {"report --prometheus http://127.0.0.1:1 --plot saving.pdf",
            "--plot: \"saving.pdf\" must end in .svg or .png"},
           {"report --prometheus http://127.0.0.1:1 --since 400d --plot saving.svg",
            "--plot: plots at most 366 days, --since is \"400d\""},
       }) {
    const testing::ShellRun run =
        testing::Shell(absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY, " ", args, " 2>&1"));
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.output;
    EXPECT_THAT(run.output, HasSubstr(says)) << args;
  }
}

}  // namespace
}  // namespace carbonroute
