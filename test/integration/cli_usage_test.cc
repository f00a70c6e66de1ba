// The binaries as a careless user runs them: typos, missing files, wrong
// types. Every usage error exits 2 and says what was wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_provider_server.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using testing::ShellRun;

// stdout and stderr.
ShellRun Shell(const std::string& command) { return testing::Shell(command + " 2>&1"); }

const std::string kCollector = CARBONROUTE_COLLECTOR_BINARY;
const std::string kSchedulerLite = CARBONROUTE_SCHEDULER_LITE_BINARY;

TEST(CliUsage, ATypoedSubcommandNamesTheTypoAndTheClosestSubcommand) {
  const ShellRun run = Shell(kSchedulerLite + " rnak --locations DE");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("unknown subcommand \"rnak\"; did you mean \"rank\"?"));
}

TEST(CliUsage, BadArgumentsExit2) {
  for (const std::string& args :
       {std::string(""), std::string("rank --candidates nodez"), std::string("rank --max-rtt-ms x"),
        std::string("rank --max-rtt-ms 5"), std::string("window --location DE"),
        std::string("serve --refresh soon"), std::string("rank --no-such-flag"),
        std::string("serve --listen 8888"), std::string("serve --web.listen-address host:"),
        std::string("serve --listen 127.0.0.1:99999")}) {
    const ShellRun run = Shell(absl::StrCat(kSchedulerLite, " ", args));
    EXPECT_EQ(run.exit_code, 2) << args << ": " << run.output;
    EXPECT_FALSE(run.output.empty()) << args;
  }
  EXPECT_EQ(Shell(kSchedulerLite + " --help").exit_code, 0);
  EXPECT_EQ(Shell(kSchedulerLite + " --version").exit_code, 0);
  const std::string version = Shell(kSchedulerLite + " --version").output;
  EXPECT_THAT(version, ::testing::StartsWith("scheduler-lite " CARBONROUTE_VERSION " (revision "));
  EXPECT_THAT(version, HasSubstr(", built 20"));
}

// A data file the user named and that cannot be read is a usage error naming it; only the
// default files may be absent (with a warning).
TEST(CliUsage, ANamedDataFileThatIsMissingExits2NamingIt) {
  testing::ScopedTempDir dir;
  const std::string missing = dir.File("nope.csv");
  for (const std::string& args :
       {"rank --rtt-matrix " + missing, "rank --region-zones " + missing + " --candidates regions",
        "serve --rtt-matrix " + missing, "explain FR --region-zones " + missing,
        "hold --region-zones " + missing, "simulate --trace " + missing,
        "simulate --zone-groups " + missing + " --shift time"}) {
    const ShellRun run = Shell(absl::StrCat(kSchedulerLite, " ", args));
    EXPECT_EQ(run.exit_code, 2) << args << ": " << run.output;
    EXPECT_THAT(run.output, HasSubstr(missing)) << args;
  }
}

// A named file that is not what its flag reads is a usage error too (it was a warning, and
// `rank` went on to rank without it), naming the flag, the file and the line.
TEST(CliUsage, ANamedDataFileThatIsMalformedExits2NamingTheFlagAndLine) {
  const std::string readme = std::string(CARBONROUTE_SOURCE_DIR) + "/README.md";
  const std::string matrix =
      std::string(CARBONROUTE_SOURCE_DIR) + "/data/gcp-inter-region-latency-ms.csv";
  ShellRun run = Shell(absl::StrCat(kSchedulerLite, " rank --rtt-matrix ", readme));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("--rtt-matrix: not an RTT matrix: " + readme + ":"));
  run = Shell(absl::StrCat(kSchedulerLite, " rank --region-zones ", matrix));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output,
              HasSubstr("--region-zones: not a region table: " + matrix + ":2: expected 2 cells"));
  run = Shell(absl::StrCat(kSchedulerLite, " serve --rtt-matrix ", readme));
  EXPECT_EQ(run.exit_code, 2) << run.output;
}

// Answered as users mean them: `help`, `help SUB`, `-v`; serve's --threads 0 is refused, and
// serve takes the collector's --log.level values (one list, base/log_line.h).
TEST(CliUsage, HelpAndVersionAsTypedAndOneSetOfDaemonFlags) {
  ShellRun run = Shell(kSchedulerLite + " help");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("Usage: scheduler-lite [OPTIONS] SUBCOMMAND"));
  run = Shell(kSchedulerLite + " help window");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("Usage: scheduler-lite window [OPTIONS]"));
  run = Shell(kSchedulerLite + " -v");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, ::testing::StartsWith("scheduler-lite " CARBONROUTE_VERSION));
  // A mistyped subcommand with --help is still a mistyped subcommand (it printed the top-level
  // help and exited 0); a flag's mistake starts with the program's name; rank's one limit is
  // shown as one.
  run = Shell(kSchedulerLite + " reprot --help");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("scheduler-lite: unknown subcommand \"reprot\""));
  run = Shell(kSchedulerLite + " rank --from x --max-rtt-ms 50ms");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, ::testing::StartsWith("scheduler-lite: --max-rtt-ms: expected a latency "
                                                "limit in ms ≥ 0 such as 50, got \"50ms\""));
  run = Shell(kCollector + " --log.level nope");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, ::testing::StartsWith("carbonroute-collector: --log.level: "));
  // A model limit shorter than two refreshes would refuse Pods while the sources are fine.
  run = Shell(kSchedulerLite + " serve --max-model-age 5s --refresh 60s");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("--max-model-age: \"5s\" is shorter than two refreshes "
                                    "(--refresh 60s)"));
  EXPECT_THAT(run.output, HasSubstr("give at least 2m"));
  run = Shell(kSchedulerLite + " serve --threads 0");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("--threads: Value 0 not in range 1 to 256"));
  // --namespaces narrows shadow mode only; shadow mode needs the Kubernetes API it watches.
  run = Shell(kSchedulerLite + " serve --namespaces shop");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("--namespaces: is for --shadow"));
  // No Kubernetes API anywhere (no flag names one): a start-up failure, exit 1, as the
  // collector's; a flag naming one that is not there stays a usage error, exit 2.
  run = Shell("env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME=/nonexistent " + kSchedulerLite +
              " serve --shadow");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("no Kubernetes API to talk to"));
  run = Shell(kSchedulerLite + " serve --shadow --kubeconfig /nonexistent/kubeconfg");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  for (const char* level : {"trace", "off"}) {
    run = Shell(absl::StrCat(kSchedulerLite, " serve --log.level ", level, " --help"));
    EXPECT_EQ(run.exit_code, 0) << level << ": " << run.output;
    run = Shell(absl::StrCat(kCollector, " --log.level ", level, " --help"));
    EXPECT_EQ(run.exit_code, 0) << level << ": " << run.output;
  }
  // Every daemon of both programs takes the same four flags (cli/daemon_flags.h),
  // and a listen address that is not host:port is the same usage error in each.
  for (const std::string& daemon :
       {kCollector, kSchedulerLite + " serve", kSchedulerLite + " hold",
        kSchedulerLite + " karmada --controller", kSchedulerLite + " rebalance --controller"}) {
    run = Shell(daemon + " --help");
    EXPECT_EQ(run.exit_code, 0) << daemon << ": " << run.output;
    for (const char* flag :
         {"--log.level", "--log.format", "--web.listen-address", "--web.config.file"}) {
      EXPECT_THAT(run.output, HasSubstr(flag)) << daemon;
    }
    run = Shell(daemon + " --web.listen-address host:" +
                (daemon == kCollector ? " --config /dev/null" : ""));
    EXPECT_EQ(run.exit_code, 2) << daemon << ": " << run.output;
    EXPECT_THAT(run.output, HasSubstr("expected host:port such as 127.0.0.1:9464, or :9464 for "
                                      "every interface, got \"host:\""))
        << daemon;
  }
}

// Re-placement's mistakes, and the simulator's re-placement flags, each named with exit 2.
TEST(CliUsage, RebalanceMistakesAreNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"rebalance", "--controller: is required: rebalance runs as a controller"},
      {"rebalance --controller --resync soon", "--resync"},
      {"rebalance --controller --scheduler-name ''", "--scheduler-name: must not be empty"},
      {"rebalance --controller --watts-per-cpu -1", "--watts-per-cpu"},
      {"simulate --shift rebalance --job-length 1h",
       "--job-length: applies to --shift time or both, not --shift rebalance"},
      {"simulate --shift rebalance --tolerances -5", "--tolerances"},
      {"simulate --shift rebalance --restart-minutes x", "--restart-minutes"},
      {"simulate --shift rebalance --lifetime 90m", "--lifetime"},
      {"simulate --shift rebalance --group Europa", "did you mean \"Europe\"?"},
      {"simulate --tolerances 10", "--tolerances: applies to --shift rebalance"}};
  for (const auto& [args, expected] : cases) {
    const ShellRun run = Shell(absl::StrCat(kSchedulerLite, " ", args));
    EXPECT_EQ(run.exit_code, 2) << args << ": " << run.output;
    EXPECT_THAT(run.output, HasSubstr(expected)) << args;
  }
}

TEST(CliUsage, CollectorUsageErrorsExit2) {
  ShellRun run = Shell(kCollector + " --config /nonexistent/collector.yaml");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("nonexistent/collector.yaml"));
  run = Shell(kCollector + " --log-level loud");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("loud"));
  EXPECT_EQ(Shell(kCollector).exit_code, 2);  // no --config
  EXPECT_EQ(Shell(kCollector + " --help").exit_code, 0);
  run = Shell(kCollector + " --web.config.file /nonexistent/web.yml");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("/nonexistent/web.yml"));
}

TEST(CliUsage, AMistakeInTheWebConfigIsAUsageErrorNamingTheKey) {
  testing::ScopedTempDir dir;
  std::ofstream(dir.File("collector.yaml"))
      << "node: {name: n1}\nproviders: [{type: static, values: {DE: 300}}]\n";
  std::ofstream(dir.File("web.yml")) << "basic_auth_users: {prometheus: plaintext-password}\n";
  ShellRun run = Shell(absl::StrCat(kCollector, " --config ", dir.File("collector.yaml"),
                                    " --web.config.file ", dir.File("web.yml")));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("basic_auth_users.prometheus: not a bcrypt hash"));
  EXPECT_THAT(run.output, ::testing::Not(HasSubstr("plaintext-password")));
}

TEST(CliUsage, DiscoveryMistakesAreNamedByCheckConfig) {
  testing::ScopedTempDir dir;
  const std::string config = dir.File("collector.yaml");
  auto check = [&](const std::string& rtt) {
    std::ofstream(config) << "node: {name: n1}\nproviders: [{type: static, values: {DE: 300}}]\n"
                          << "rtt:\n"
                          << rtt;
    return Shell(absl::StrCat("env -u KUBERNETES_SERVICE_HOST -u KUBECONFIG HOME=", dir.path(), " ",
                              kCollector, " --check-config ", config));
  };
  // Not in a Pod, no api_url: valid, but not runnable here (exit 3), naming what is missing.
  ShellRun run = check("  discovery: {kubernetes: {}}\n");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_THAT(run.output, HasSubstr("rtt.discovery.kubernetes: no Kubernetes API to talk to"));
  EXPECT_THAT(run.output, HasSubstr("set kubeconfig (a kubeconfig file) or api_url"));
  run = check("  discovery: {kubernetes: {kubeconfig: nope.yaml}}\n");  // a typo'd file
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("kubeconfig nope.yaml: no such file"));
  run = check("  discovery: {kubernetes: {api_url: \"127.0.0.1:8001\"}}\n");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("rtt.discovery.kubernetes.api_url: expected an http:// or "
                                    "https:// URL, got \"127.0.0.1:8001\""));
  run = check("  discovery: {kubernetes: {api_url: \"http://127.0.0.1:8001\", pagesize: 5}}\n");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("rtt.discovery.kubernetes.pagesize"));
  run = check("  peer_selection: {mode: sample}\n");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("rtt.peer_selection.mode: must be auto, all, sampled or none, "
                                    "got \"sample\""));
  run = check("  peer_selection: {per_remote_zone: 0}\n");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("rtt.peer_selection.per_remote_zone"));
  run = check("  discovery: {kubernetes: {api_url: \"http://127.0.0.1:8001\"}}\n");
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

TEST(CliUsage, CarbonRoleMistakesAreNamedByCheckConfig) {
  testing::ScopedTempDir dir;
  const std::string config = dir.File("collector.yaml");
  auto check = [&](const std::string& yaml) {
    std::ofstream(config) << yaml;
    return Shell(absl::StrCat(kCollector, " --check-config ", config, " 2>&1"));
  };
  const std::string discovery =
      "rtt: {discovery: {kubernetes: {api_url: \"http://127.0.0.1:8001\"}}, peer_selection: "
      "{mode: none}}\n";
  // A typo of the word.
  ShellRun run =
      check("node: {name: n1}\n" + discovery + "providers: [{type: replay, locations: node}]\n");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("providers[0].locations: expected a list of locations or "
                                    "\"nodes\", got \"node\""));
  // The Nodes' locations without the Nodes.
  run = check("node: {name: n1}\nproviders: [{type: replay, locations: nodes}]\n");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("\"nodes\" needs rtt.discovery.kubernetes"));
  // A share of an account that is not a whole number of collectors.
  run = check("node: {name: n1}\n" + discovery +
              "providers: [{type: electricity_maps, token: t, locations: nodes, "
              "account_shared_by: 1.5}]\n");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("providers[0].account_shared_by: must be a whole number"));
  // The latency role and the carbon role as shipped are valid.
  run = check(
      "node: {name: n1}\nrtt: {discovery: {kubernetes: {api_url: "
      "\"http://127.0.0.1:8001\"}}}\n");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  run = check("node: {name: n1}\n" + discovery + "providers: [{type: replay, locations: nodes}]\n");
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

TEST(CliUsage, ACarbonToleranceMustBeANumberAtLeastZero) {
  for (const char* command : {"rank --carbon-tolerance -1", "explain FR --carbon-tolerance lots",
                              "serve --carbon-tolerance -0.5", "simulate --carbon-tolerance x"}) {
    ShellRun run = Shell(absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY, " ", command, " 2>&1"));
    EXPECT_EQ(run.exit_code, 2) << command << ": " << run.output;
    EXPECT_THAT(run.output, HasSubstr("--carbon-tolerance: expected a number ≥ 0, got \""))
        << command;
    EXPECT_THAT(run.output, Not(HasSubstr("179769")))  // no 300-digit upper bound
        << command;
  }
  // The three scoring knobs are one set of flags with one check (ScoringFlags).
  for (const char* command :
       {"rank --carbon-weight -1", "serve --latency-weight -2", "simulate --carbon-weight -3"}) {
    ShellRun run = Shell(absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY, " ", command, " 2>&1"));
    EXPECT_EQ(run.exit_code, 2) << command << ": " << run.output;
    EXPECT_THAT(run.output, HasSubstr("expected a number ≥ 0, got \"-")) << command;
  }
}

TEST(CliUsage, EveryLatencyLimitFlagIsCheckedAlike) {
  // The same check everywhere; the example is what the flag takes: one limit for rank and
  // explain, a list for simulate (rank refuses a list, so it must not suggest one).
  for (const auto& [command, example] :
       {std::pair{"rank --from demo-node --max-rtt-ms -5", "a latency limit in ms ≥ 0 such as 50"},
        std::pair{"explain FR --from demo-node --max-rtt-ms -5",
                  "a latency limit in ms ≥ 0 such as 50"},
        std::pair{"simulate --max-rtt-ms -5", "latency limits in ms ≥ 0 such as 50,100,150"}}) {
    ShellRun run = Shell(absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY, " ", command, " 2>&1"));
    EXPECT_EQ(run.exit_code, 2) << command;
    EXPECT_THAT(run.output,
                HasSubstr(absl::StrCat("--max-rtt-ms: expected ", example, ", got \"-5\"\n")))
        << command;
  }
  ShellRun listed = Shell(absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY,
                                       " simulate --max-rtt-ms '5, x' 2>&1"));  // spaces trimmed
  EXPECT_THAT(listed.output, HasSubstr("got \"x\" in \"5, x\""));
  ShellRun two = Shell(absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY,
                                    " rank --from demo-node --max-rtt-ms 5,10 2>&1"));
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_THAT(two.output, HasSubstr("--max-rtt-ms: expected one limit"));
}

// "DE, FR" is DE and FR, as a person types it; a name given twice is ranked once.
TEST(CliUsage, LocationListsAreTrimmedAndNamesCountOnce) {
  testing::FakeProviderServer collector;
  collector.Route("/metrics", [](const testing::FakeRequest&) {
    return testing::FakeResponse{
        200,
        "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\","
        "location=\"DE\",provider=\"p\"} 400\n"
        "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\","
        "location=\"FR\",provider=\"p\"} 50\n",
        {}};
  });
  const ShellRun run = Shell(absl::StrCat(kSchedulerLite, " rank --metrics ", collector.base_url(),
                                          "/metrics --locations 'DE, FR, DE' --format json"));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json ranked = nlohmann::json::parse(run.output, nullptr, false);
  ASSERT_TRUE(ranked.is_object()) << run.output;
  ASSERT_EQ(ranked["candidates"].size(), 2u) << run.output;
  EXPECT_EQ(ranked["candidates"][0]["name"], "FR");
}

// A repeatable option takes one value per occurrence: the words after it are
// the command's own, whatever their order (`explain --metrics URL FR` named
// FR a second URL and then said "name is required").
TEST(CliUsage, ARepeatableOptionTakesOneValueWhateverTheOrder) {
  testing::ScopedTempDir dir;
  const testing::CollectorProcess collector = testing::StartCollector(
      dir.path(), absl::StrCat("listen_address: 127.0.0.1:0\ndatabase: ", dir.path(),
                               "/readings.sqlite\nnode: {name: node-a, region: europe-west1, "
                               "location: BE}\nproviders: [{type: replay, locations: [BE, FR, "
                               "DE]}]\n"));
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  const std::string metrics =
      absl::StrCat(" --metrics http://127.0.0.1:", collector.port, "/metrics ");
  const std::string data = absl::StrCat(" --data-dir ", CARBONROUTE_SOURCE_DIR, "/data");

  const ShellRun explain_first =
      Shell(kSchedulerLite + " explain" + metrics + "FR --runtime 1h" + data);
  EXPECT_EQ(explain_first.exit_code, 0) << explain_first.output;
  EXPECT_THAT(explain_first.output, HasSubstr("FR"));
  EXPECT_THAT(explain_first.output, Not(HasSubstr("is required")));
  EXPECT_EQ(Shell(kSchedulerLite + " explain FR" + metrics + "--runtime 1h" + data).output,
            explain_first.output);

  const ShellRun explain_two = Shell(kSchedulerLite + " explain" + metrics + "FR DE" + data);
  EXPECT_EQ(explain_two.exit_code, 2) << explain_two.output;
  EXPECT_THAT(explain_two.output, HasSubstr("DE"));

  const ShellRun rank = Shell(kSchedulerLite + " rank" + metrics + "DE" + data);
  EXPECT_EQ(rank.exit_code, 2) << rank.output;
  EXPECT_THAT(rank.output, HasSubstr("DE"));
  EXPECT_THAT(rank.output, Not(HasSubstr("warning")));
  // Repeated, each occurrence still takes its one value.
  const ShellRun twice = Shell(kSchedulerLite + " rank" + metrics + metrics + data);
  EXPECT_EQ(twice.exit_code, 0) << twice.output;
}

// One duration syntax everywhere (days and weeks too), and a number of things
// that cannot be negative is refused naming its range, not wrapped around.
TEST(CliUsage, DurationsTakeDaysEverywhereAndCountsAreNeverNegative) {
  const std::string unreachable = " --metrics http://127.0.0.1:1/metrics";
  for (const char* command : {"rank --runtime 2d", "explain FR --runtime 1w"}) {
    const ShellRun run = Shell(absl::StrCat(kSchedulerLite, " ", command, unreachable));
    EXPECT_EQ(run.exit_code, 1) << command << ": " << run.output;  // the source, not the flag
    EXPECT_THAT(run.output, HasSubstr("no source could be read")) << command;
  }
  const ShellRun window = Shell(kSchedulerLite +
                                " window --location DE --duration 1d --deadline +2d --collector "
                                "http://127.0.0.1:1");
  EXPECT_EQ(window.exit_code, 1) << window.output;
  EXPECT_THAT(window.output, HasSubstr("127.0.0.1:1/api/v1/forecast"));
  const ShellRun days = Shell(kSchedulerLite + " rank --runtime 2days" + unreachable);
  EXPECT_EQ(days.exit_code, 2) << days.output;
  EXPECT_THAT(days.output, HasSubstr("--runtime: expected a positive duration such as 90m, 2h or "
                                     "7d, got \"2days\""));

  const ShellRun threads = Shell(kSchedulerLite + " simulate --threads -1");
  EXPECT_EQ(threads.exit_code, 2) << threads.output;
  EXPECT_THAT(threads.output, HasSubstr("--threads"));
  EXPECT_THAT(threads.output, HasSubstr("0 to 1024"));
  EXPECT_LT(threads.output.size(), 300u) << threads.output;
  for (const char* bytes : {"-1", "0", "99999999999"}) {
    const ShellRun body = Shell(absl::StrCat(kSchedulerLite, " serve --max-body-bytes ", bytes));
    EXPECT_EQ(body.exit_code, 2) << bytes << ": " << body.output;
    EXPECT_THAT(body.output, HasSubstr("--max-body-bytes")) << bytes;
  }
}

TEST(CliUsage, AMistypedOptionIsAnsweredWithTheClosestOne) {
  ShellRun run = Shell(kSchedulerLite + " rank --locatoins DE 2>&1");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(
      run.output,
      HasSubstr("scheduler-lite rank: unknown option --locatoins; did you mean --locations?"));
  run = Shell(kSchedulerLite + " window --colector=http://x --location DE 2>&1");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("unknown option --colector; did you mean --collector?"));
  run = Shell(absl::StrCat(kCollector, " --confg collector.yaml 2>&1"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output,
              HasSubstr("carbonroute-collector: unknown option --confg; did you mean --config?"));
  run = Shell(kSchedulerLite + " rank --frobnicate 2>&1");  // nothing close: no guess
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("unknown option --frobnicate (see rank --help)"));
}

TEST(CliUsage, CheckConfigTellsMissingCredentialsFromAnInvalidConfiguration) {
  // The shipped live configuration on a workstation: valid, its credentials and its database's
  // directory elsewhere; every one named, not the first per provider.
  testing::ScopedTempDir dir;
  const std::string live = dir.File("live.yaml");
  {
    std::string yaml =
        testing::ReadFile(std::string(CARBONROUTE_SOURCE_DIR) + "/config/examples/live.yaml");
    const std::size_t database = yaml.find("\ndatabase: ");
    ASSERT_NE(database, std::string::npos);
    yaml.replace(database + 1, yaml.find('\n', database + 1) - database - 1,
                 "database: " + dir.File("no-such-dir/readings.sqlite"));
    std::ofstream(live) << yaml;
  }
  ShellRun run = Shell(absl::StrCat("env -u CREDENTIALS_DIRECTORY ", kCollector, " --check-config ",
                                    live, " --data-dir ", CARBONROUTE_SOURCE_DIR, "/data 2>&1"));
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_THAT(run.output, HasSubstr("provider \"watttime\" username: credential"));
  EXPECT_THAT(run.output, HasSubstr("provider \"watttime\" password: credential"));
  EXPECT_THAT(run.output, HasSubstr("provider \"electricity_maps\" token: credential"));
  EXPECT_THAT(run.output, HasSubstr("database: the directory \"" + dir.File("no-such-dir")));
  EXPECT_THAT(run.output,
              HasSubstr("valid, but 4 things it needs are not available here (exit 3)"));
  // A missing credential does not hide a real mistake elsewhere: that is exit 2.
  const std::string config = dir.File("collector.yaml");
  std::ofstream(config) << "node: {name: n1}\nrtt: {static_matrix: no-such-matrix.csv, peers: "
                           "[{name: p, region: europe-west1}]}\nproviders: [{type: "
                           "electricity_maps, token: {env: CARBONROUTE_TEST_UNSET}, locations: "
                           "[DE]}]\n";
  run = Shell(absl::StrCat("env -u CARBONROUTE_TEST_UNSET ", kCollector, " --check-config ", config,
                           " 2>&1"));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("rtt.static_matrix"));
  // The daemon keeps the same rule: a file the configuration names is a configuration error
  // (exit 2, before anything starts); a database directory this machine lacks is a start-up
  // failure (exit 1).
  run = Shell(absl::StrCat("env CARBONROUTE_TEST_UNSET=x ", kCollector, " --config ", config));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("rtt.static_matrix"));
  std::ofstream(config) << "node: {name: n1}\nlisten_address: 127.0.0.1:0\ndatabase: "
                        << dir.File("no-such-dir/readings.sqlite") << "\nproviders: []\n";
  run = Shell(absl::StrCat(kCollector, " --config ", config));
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("no-such-dir"));
}

// Every line of a log as Prometheus exporters write it: logfmt (ts, level, msg) or JSON.
void ExpectLogLines(const std::string& log, bool json) {
  std::vector<std::string> lines = absl::StrSplit(log, '\n', absl::SkipEmpty());
  ASSERT_FALSE(lines.empty());
  for (const std::string& line : lines) {
    if (json) {
      const nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
      ASSERT_FALSE(parsed.is_discarded()) << line;
      EXPECT_TRUE(parsed.contains("ts") && parsed.contains("level") && parsed.contains("msg"))
          << line;
    } else {
      EXPECT_THAT(line, ::testing::MatchesRegex(
                            "ts=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z level=(debug|info|warn|error) "
                            "msg=\".*\""))
          << line;
    }
  }
  EXPECT_THAT(lines.back(), HasSubstr("stopped"));
}

TEST(CliUsage, ServersTakeTheExporterFlagsAndLogInLogfmtOrJson) {
  testing::ScopedTempDir dir;
  // The YAML names a port already taken: --web.listen-address overrides it.
  testing::FakeProviderServer taken;
  const std::string yaml = absl::StrCat("listen_address: 127.0.0.1:", taken.port(),
                                        "\ndatabase: \":memory:\"\nnode: {name: n}\n"
                                        "providers: [{type: static, values: {DE: 300}}]\n");
  testing::CollectorProcess collector = testing::LaunchCollector(
      dir.path(), yaml, "logfmt.log", {"--web.listen-address", "127.0.0.1:0"});
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  EXPECT_NE(collector.port, taken.port());
  EXPECT_EQ(collector.process->Terminate(), 0);
  ExpectLogLines(collector.process->Log(), /*json=*/false);

  collector = testing::LaunchCollector(
      dir.path(), yaml, "json.log",
      {"--web.listen-address", "127.0.0.1:0", "--log.format", "json", "--log.level", "debug"});
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  EXPECT_EQ(collector.process->Terminate(), 0);
  ExpectLogLines(collector.process->Log(), /*json=*/true);

  // scheduler-lite serve: the same flags (--listen still works), the same lines, "stopped" at the
  // end.
  for (const char* listen : {"--web.listen-address", "--listen"}) {
    testing::Subprocess serve(
        {kSchedulerLite, "serve", listen, "127.0.0.1:0", "--metrics", "http://127.0.0.1:1/metrics"},
        dir.File(absl::StrCat("serve", listen, ".log")));
    ASSERT_TRUE(testing::WaitFor(
        [&] { return serve.Log().find("serving the kube-scheduler") != std::string::npos; },
        absl::Seconds(20)))
        << serve.Log();
    EXPECT_EQ(serve.Terminate(), 0);
    ExpectLogLines(serve.Log(), /*json=*/false);
  }
}

}  // namespace
}  // namespace carbonroute
