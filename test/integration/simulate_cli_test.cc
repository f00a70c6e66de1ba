// `scheduler-lite simulate` as a user runs it, from a directory outside the
// tree: the CSV contract, the plot, and the mistakes a careless user makes
// (each exits 2 and names what was wrong).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "test/testing/build_paths.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kSimulateCli = CARBONROUTE_SCHEDULER_LITE_BINARY;
const std::string kData = std::string(CARBONROUTE_SOURCE_DIR) + "/data";

// Runs `simulate ARGS` in `dir` on the shipped data (stdout and stderr).
testing::ShellRun Simulate(const std::string& dir, const std::string& args) {
  return testing::Shell(absl::StrCat("cd ", dir, " && ", kSimulateCli, " simulate --data-dir ",
                                     kData, " ", args, " 2>&1"));
}

TEST(SimulateCli, CsvHasTheContractHeaderAndOneRowPerPolicyLimitAndIdleLevel) {
  testing::ScopedTempDir dir;
  const testing::ShellRun run = testing::Shell(
      absl::StrCat("cd ", dir.path(), " && ", kSimulateCli, " simulate --data-dir ", kData,
                   " --max-rtt-ms 50,100 --idle-capacity 50 --runtime 24h"
                   " --origins europe-west1,DE --format csv 2>/dev/null"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output,
              StartsWith("policy,max_rtt_ms,idle_capacity_percent,mean_grams_per_kwh,"
                         "saving_percent,oracle_saving_share,mean_rtt_ms\nlocal,50,50,"));
  EXPECT_EQ(std::count(run.output.begin(), run.output.end(), '\n'), 1 + 4 * 2);
  EXPECT_THAT(run.output, HasSubstr("\noracle,100,50,"));
}

TEST(SimulateCli, PlotIsDrawnByGnuplot) {
  testing::ScopedTempDir dir;
  const testing::ShellRun run = Simulate(
      dir.path(), "--max-rtt-ms 50,150 --idle-capacity 50,99 --runtime 24h --plot out.svg");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string svg = testing::ReadFile(dir.File("out.svg"));
  EXPECT_THAT(svg, HasSubstr("<svg"));
  EXPECT_THAT(svg, HasSubstr("idle capacity 99%"));
  EXPECT_THAT(svg, HasSubstr("carbonroute"));
  EXPECT_THAT(run.output, HasSubstr("plot written to out.svg"));
  // One latency limit: drawn without gnuplot's "empty x range" warning.
  const testing::ShellRun one =
      Simulate(dir.path(), "--max-rtt-ms 50 --policies local --plot one.svg");
  EXPECT_EQ(one.exit_code, 0) << one.output;
  EXPECT_THAT(one.output, Not(HasSubstr("empty x range")));
}

TEST(SimulateCli, ShippedDataSkipsTheZonesTheTraceLacksNamingThem) {
  testing::ScopedTempDir dir;
  const testing::ShellRun run =
      Simulate(dir.path(), "--max-rtt-ms 50 --idle-capacity 50 --runtime 24h");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("note: 3 sites without carbon data in"));
  EXPECT_THAT(run.output, HasSubstr("AUS-NSW (australia-southeast1): not in the trace"));
}

TEST(SimulateCli, ATraceWithoutSomeZonesSkipsTheirSites) {
  testing::ScopedTempDir dir;
  std::ofstream(dir.File("trace.csv")) << "datetime,BE,NL\n"
                                       << "2022-01-01T00:00:00Z,100,300\n"
                                       << "2022-01-01T01:00:00Z,120,280\n";
  const testing::ShellRun run =
      Simulate(dir.path(), "--trace trace.csv --max-rtt-ms 10 --idle-capacity 50 --format csv");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("31 sites without carbon data in trace.csv are left out"));
  EXPECT_THAT(run.output, HasSubstr("US-MIDA-PJM (us-east4, us-east5): not in the trace"));
  // europe-west4 (NL) → europe-west1 (BE) is 7 ms in the matrix: all of NL's
  // work moves to BE's free half; everything runs at BE's mean, 110.
  // The price: local runs everything at home (5 ms); the oracle moved NL's 50
  // units 7 ms away, BE's 50 stay: (50 × 5 + 50 × 7) / 100 = 6 ms.
  EXPECT_THAT(run.output, HasSubstr("\nlocal,10,50,200.000,0.000,0.0000,5.000\n"));
  EXPECT_THAT(run.output, HasSubstr("\noracle,10,50,110.000,45.000,1.0000,6.000\n"));
}

TEST(SimulateCli, MistakesExit2NamingTheValue) {
  testing::ScopedTempDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {"--max-rtt-ms 50,abc", "\"abc\""},
      {"--max-rtt-ms -5", "\"-5\""},
      {"--idle-capacity 100", "\"100\""},
      {"--idle-capacity 12.5", "whole percentages"},
      {"--policies local,greedy", "unknown policy \"greedy\""},
      {"--runtime 90m", "whole hours"},
      {"--runtime 9000h", "runtime_hours: 9000"},
      {"--forecast psychic", "psychic"},
      {"--format xml", "xml"},
      {"--plot out.pdf", "out.pdf\" must end in .svg or .png"},
      {"--origins europe-wset1", "unknown origin \"europe-wset1\""},
      {"--origins australia-southeast1", "(zone AUS-NSW) has no carbon data"},
      {"--trace missing.csv", "missing.csv"},
      {"--rtt-matrix missing.csv", "missing.csv"},
      {"--max-rtt-ms", "--max-rtt-ms"},
      {"--latency-weight -1", "--latency-weight"},
      {"--carbon-weight 0 --latency-weight 0", "not both 0"},
  };
  for (const auto& [args, message] : cases) {
    const testing::ShellRun run = Simulate(dir.path(), args);
    EXPECT_EQ(run.exit_code, 2) << args << ": " << run.output;
    EXPECT_THAT(run.output, HasSubstr(message)) << args;
  }
  // Regions a table maps to no grid zone are named as such, not under an empty zone
  // (one limit, one idle level and daily periods: the warning is what is checked).
  const testing::ShellRun all_clouds =
      Simulate(dir.path(), "--region-zones " + kData +
                               "/cloud-regions.csv --policies local --max-rtt-ms 50 "
                               "--idle-capacity 50 --runtime 24h");
  EXPECT_THAT(all_clouds.output, HasSubstr("regions without a grid zone in "));
  EXPECT_THAT(all_clouds.output, HasSubstr("(cn-north-1, "));
  EXPECT_THAT(all_clouds.output, Not(HasSubstr(":  (")));
  EXPECT_THAT(Simulate(dir.path(), "--origins europe-wset1").output,
              HasSubstr("did you mean \"europe-west1\"?"));
  // Another cloud's region, as rank, window and the SDK API take it: its grid zone's site.
  const testing::ShellRun azure =
      Simulate(dir.path(), "--origins eastus --policies local --max-rtt-ms 50 --format csv");
  EXPECT_EQ(azure.exit_code, 0) << azure.output;
  EXPECT_THAT(azure.output, HasSubstr("note: --origins: \"eastus\" taken as its grid zone "
                                      "US-MIDA-PJM"));
  std::ofstream(dir.File("bad.csv")) << "datetime,BE\n2022-01-01T00:00:00Z,lots\n";
  const testing::ShellRun bad = Simulate(dir.path(), "--trace bad.csv");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.output, HasSubstr("bad.csv:2: zone BE: \"lots\" is not a non-negative number"));
}

TEST(SimulateCli, TimeShiftCsvHasTheContractHeaderAndHandComputedMeans) {
  testing::ScopedTempDir dir;
  // Two zones, four hours: A 4, 1, 3, 2; B flat 5. Europe is A alone.
  std::ofstream(dir.File("trace.csv")) << "datetime,A,B\n"
                                       << "2022-01-01T00:00:00Z,4,5\n"
                                       << "2022-01-01T01:00:00Z,1,5\n"
                                       << "2022-01-01T02:00:00Z,3,5\n"
                                       << "2022-01-01T03:00:00Z,2,5\n";
  std::ofstream(dir.File("groups.csv")) << "zone_code,Americas,Europe,Asia,Oceania\nA,,1,,\n";
  const testing::ShellRun run = testing::Shell(absl::StrCat(
      "cd ", dir.path(), " && ", kSimulateCli,
      " simulate --shift time --trace trace.csv --zone-groups groups.csv --job-length 2h"
      " --slack 1h,1d --group Europe,Global --policies now,oracle --format csv 2>&1"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // A, 2-hour jobs at hours 0–2: now 2.5, 2, 2.5 (mean 7/3). Slack 1 h, not
  // interruptible: the better of two blocks, 2, 2, 2.5 (mean 13/6); interruptible:
  // the 2 smallest of [t, t + 3): 2.5, 1.5, 2.5 (mean 13/6). Slack 1 d: the rest of
  // the series: {1, 2} from every arrival that can reach both, else its own window.
  EXPECT_THAT(run.output,
              StartsWith("policy,group,job_length_hours,slack_hours,interruptible,"
                         "mean_grams_per_kwh,reduction_grams_per_kwh,oracle_saving_share\n"
                         "now,Europe,2,1,no,2.333,0.000,0.0000\n"
                         "oracle,Europe,2,1,no,2.167,0.167,1.0000\n"
                         "now,Europe,2,1,yes,2.333,0.000,0.0000\n"
                         "oracle,Europe,2,1,yes,2.000,0.333,1.0000\n"));
  EXPECT_THAT(run.output, HasSubstr("\noracle,Global,2,24,yes,"));
  const testing::ShellRun json = testing::Shell(absl::StrCat(
      "cd ", dir.path(), " && ", kSimulateCli,
      " simulate --shift time --trace trace.csv --zone-groups groups.csv --job-length 1h"
      " --slack 0h --interruptible no --policies oracle --group Global --format json"));
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_THAT(json.output, HasSubstr("\"shift\": \"time\""));
  EXPECT_THAT(json.output,
              HasSubstr("\"oracle_saving_share\": null"));  // no slack: nothing to gain
  EXPECT_THAT(json.output, Not(HasSubstr("\"policy\": \"now\"")));
}

// --shift both over two sites 20 ms apart: A 4, 1, 3, 2; B 5, 5, 0, 5. Within
// 20 ms each reaches the other: reachable A = B = 4, 1, 0, 2. One-hour jobs, no
// slack: now runs at home (A 2.5, B 3.75); the oracle, not waiting, takes the
// reachable hour: 7/4 each. Within 10 ms each is alone: the oracle is now.
TEST(SimulateCli, BothShiftsCsvHasTheLimitColumnAndHandComputedMeans) {
  testing::ScopedTempDir dir;
  std::ofstream(dir.File("trace.csv")) << "datetime,A,B\n"
                                       << "2022-01-01T00:00:00Z,4,5\n"
                                       << "2022-01-01T01:00:00Z,1,5\n"
                                       << "2022-01-01T02:00:00Z,3,0\n"
                                       << "2022-01-01T03:00:00Z,2,5\n";
  std::ofstream(dir.File("groups.csv")) << "zone_code,Americas,Europe,Asia,Oceania\nA,,1,,\n";
  std::ofstream(dir.File("zones.csv")) << "gcp_region,zone\na1,A\nb1,B\n";
  std::ofstream(dir.File("rtt.csv")) << "sending_region,receiving_region,milliseconds\n"
                                     << "a1,b1,20\nb1,a1,20\n";
  const testing::ShellRun run = testing::Shell(absl::StrCat(
      "cd ", dir.path(), " && ", kSimulateCli,
      " simulate --shift both --trace trace.csv --zone-groups groups.csv --region-zones "
      "zones.csv --rtt-matrix rtt.csv --max-rtt-ms 20,10 --job-length 1h --slack 0h"
      " --interruptible no --group Global --policies now,oracle --format csv 2>&1"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output,
            "policy,group,max_rtt_ms,job_length_hours,slack_hours,interruptible,"
            "mean_grams_per_kwh,reduction_grams_per_kwh,oracle_saving_share\n"
            "now,Global,20,1,0,no,3.125,0.000,0.0000\n"
            "oracle,Global,20,1,0,no,1.750,1.375,1.0000\n"
            "now,Global,10,1,0,no,3.125,0.000,\n"
            "oracle,Global,10,1,0,no,3.125,0.000,\n");
}

TEST(SimulateCli, TimeShiftCarbonrouteSeesOnlyItsForecastHorizon) {
  testing::ScopedTempDir dir;
  // One zone, flat 5 but for one clean hour at 190; every 1-hour job may wait 45 h.
  std::ofstream trace(dir.File("trace.csv"));
  trace << "datetime,A\n";
  for (int h = 0; h < 200; ++h) {
    trace << "2022-01-" << (1 + h / 24 < 10 ? "0" : "") << 1 + h / 24 << "T"
          << (h % 24 < 10 ? "0" : "") << h % 24 << ":00:00Z," << (h == 190 ? 0 : 5) << "\n";
  }
  trace.close();
  std::ofstream(dir.File("groups.csv")) << "zone_code,Americas,Europe,Asia,Oceania\n";
  auto mean = [&](const std::string& horizon) {
    const testing::ShellRun run = testing::Shell(absl::StrCat(
        "cd ", dir.path(), " && ", kSimulateCli,
        " simulate --shift time --trace trace.csv --zone-groups groups.csv --job-length 1h"
        " --slack 45h --interruptible no --group Global --policies carbonroute --format csv"
        " --forecast-horizon ",
        horizon, " | tail -1"));
    return run.output;
  };
  // The jobs arriving 145–190 can reach hour 190: with 48 h of forecast more of them see it.
  const std::string day = mean("24h"), two_days = mean("48h");
  EXPECT_THAT(day, StartsWith("carbonroute,Global,1,45,no,"));
  EXPECT_NE(day, two_days);
  EXPECT_LT(std::stod(two_days.substr(two_days.find(",no,") + 4)),
            std::stod(day.substr(day.find(",no,") + 4)));
}

TEST(SimulateCli, TimeShiftPlotAndTheShippedYear) {
  testing::ScopedTempDir dir;
  const testing::ShellRun run =
      Simulate(dir.path(),
               "--shift time --job-length 1h,24h --slack 1d,7d --group Global,Europe"
               " --plot waiting.svg");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("carbonroute  Global"));
  EXPECT_THAT(run.output, HasSubstr("oracle       Global"));
  EXPECT_THAT(testing::ReadFile(dir.File("waiting.svg")), HasSubstr("24 h job"));
}

TEST(SimulateCli, TimeShiftMistakesExit2NamingTheValue) {
  testing::ScopedTempDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {"--shift sideways", "sideways"},
      {"--shift time --job-length 0h", "got \"0h\""},
      {"--shift time --job-length 90m", "got \"90m\""},
      {"--shift time --slack -1h", "got \"-1h\""},
      {"--shift time --slack 3x", "got \"3x\""},
      {"--shift time --interruptible maybe", "maybe"},
      {"--shift time --group Europa", "unknown group \"Europa\""},
      {"--shift time --policies now,static", "unknown policy \"static\" with --shift time"},
      {"--shift time --forecast noisy:x", "noisy:x"},
      {"--shift time --forecast-horizon 0h", "got \"0h\""},
      {"--forecast noisy:150", "got \"noisy:150\""},
      {"--carbon-tolerance -5", "--carbon-tolerance"},
      {"--capacity-prices maybe", "maybe"},
      {"--shift time --capacity-prices no", "--capacity-prices: applies to --shift space"},
      {"--forecast-horizon 48h", "--forecast-horizon: applies to --shift time"},
      {"--shift time --max-rtt-ms 50", "--max-rtt-ms: applies to --shift space"},
      {"--slack 24h", "--slack: applies to --shift time"},
      {"--shift time --zone-groups missing.csv", "missing.csv"},
      {"--shift time --job-length 9000h", "job length 9000 h is outside"},
      {"--shift both --idle-capacity 50",
       "--idle-capacity: applies to --shift space, not "
       "--shift both"},
      {"--shift both --max-rtt-ms fast", "fast"},
      {"--shift both --carbon-tolerance 5", "--carbon-tolerance: applies to --shift space"},
      {"--shift sideways", "sideways"},
  };
  for (const auto& [args, message] : cases) {
    const testing::ShellRun run = Simulate(dir.path(), args);
    EXPECT_EQ(run.exit_code, 2) << args << ": " << run.output;
    EXPECT_THAT(run.output, HasSubstr(message)) << args;
  }
  EXPECT_THAT(Simulate(dir.path(), "--shift time --group Europa").output,
              HasSubstr("did you mean \"Europe\"?"));
}

TEST(SimulateCli, HelpStatesTheModel) {
  const testing::ShellRun run = testing::Shell(kSimulateCli + " simulate --help");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.output, HasSubstr("a site to itself is 5 ms"));
  EXPECT_THAT(run.output, HasSubstr("100 * (1 - idle/100)"));
}

}  // namespace
}  // namespace carbonroute
