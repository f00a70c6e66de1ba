// scheduler-lite: carbon- and latency-aware placement from carbonroute collectors' metrics.
// main parses the command line and dispatches: each subcommand is a row of
// AllSubcommands() below and owns its flags, checks and run function
// (scheduler-lite/subcommand.h).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <optional>

#include "absl/strings/str_join.h"
#include "base/build_info.h"
#include "base/clock.h"
#include "base/open_file_limit.h"
#include "base/stop_signals.h"
#include "base/usage.h"
#include "net/curl_http_client.h"
#include "scheduler-lite/hold_command.h"
#include "scheduler-lite/karmada_command.h"
#include "scheduler-lite/rank_command.h"
#include "scheduler-lite/rebalance_command.h"
#include "scheduler-lite/report_command.h"
#include "scheduler-lite/route_command.h"
#include "scheduler-lite/serve_command.h"
#include "scheduler-lite/simulate_command.h"
#include "scheduler-lite/subcommand.h"
#include "scheduler-lite/window_command.h"

namespace carbonroute::scheduler_lite {

std::vector<std::unique_ptr<Subcommand>> AllSubcommands() {
  std::vector<std::unique_ptr<Subcommand>> table;
  table.push_back(NewRankSubcommand());
  table.push_back(NewExplainSubcommand());
  table.push_back(NewWindowSubcommand());
  table.push_back(NewKarmadaSubcommand());
  table.push_back(NewServeSubcommand());
  table.push_back(NewHoldSubcommand());
  table.push_back(NewSimulateSubcommand());
  table.push_back(NewReportSubcommand());
  table.push_back(NewRouteSubcommand());
  table.push_back(NewRebalanceSubcommand());
  return table;
}

}  // namespace carbonroute::scheduler_lite

namespace {

using carbonroute::scheduler_lite::Subcommand;

// A mistyped subcommand reaches CLI11 as an unexpected argument: name it and
// the closest subcommand instead. False when `word` is a known subcommand.
bool SayUnknownSubcommand(const std::string& word,
                          const std::vector<std::unique_ptr<Subcommand>>& table) {
  std::vector<std::string> names;
  for (const auto& subcommand : table) names.emplace_back(subcommand->name());
  if (std::find(names.begin(), names.end(), word) != names.end()) return false;
  const std::string closest = carbonroute::ClosestMatch(word, names);
  std::cerr << "scheduler-lite: unknown subcommand \"" << word << "\""
            << (closest.empty() ? "" : "; did you mean \"" + closest + "\"?")
            << " (subcommands: " << absl::StrJoin(names, ", ") << "; see --help)\n";
  return true;
}

// A mistyped option of the subcommand on the command line: each named with the
// closest known one. False when every option is known (the error is another).
bool SayUnknownOptions(int argc, char** argv,
                       const std::vector<std::pair<CLI::App*, Subcommand*>>& parsers) {
  if (argc < 2) return false;
  for (const auto& [cmd, subcommand] : parsers) {
    if (subcommand->name() != std::string(argv[1])) continue;
    std::vector<std::string> long_names = {"help"};
    for (const CLI::Option* option : cmd->get_options()) {
      for (const std::string& name : option->get_lnames()) long_names.push_back(name);
    }
    const std::vector<std::string> unknown =
        carbonroute::UnknownOptions(std::vector<std::string>(argv + 2, argv + argc), long_names);
    for (const std::string& line : unknown) {
      std::cerr << "scheduler-lite " << subcommand->name() << ": " << line << " (see "
                << subcommand->name() << " --help)\n";
    }
    return !unknown.empty();
  }
  return false;
}

}  // namespace

// An exception escaping main (a library failing at start-up) ends the process
// with its message, which is what should happen then.
int main(int argc, char** argv) {     // NOLINT(bugprone-exception-escape)
  carbonroute::RaiseOpenFileLimit();  // `serve` takes up to 2048 connections
  CLI::App app{
      "scheduler-lite: carbon- and latency-aware placement from carbonroute collectors' "
      "metrics."};
  app.name("scheduler-lite");
  // Every line a mistake prints starts with the program's name, as the other errors do.
  app.failure_message([](const CLI::App* failed, const CLI::Error& error) {
    return "scheduler-lite: " + CLI::FailureMessage::simple(failed, error);
  });
  app.set_version_flag("--version", carbonroute::VersionLine("scheduler-lite"));
  app.require_subcommand(1);

  const std::vector<std::unique_ptr<Subcommand>> table =
      carbonroute::scheduler_lite::AllSubcommands();
  std::vector<std::pair<CLI::App*, Subcommand*>> parsers;
  for (const auto& subcommand : table) {
    CLI::App* cmd = app.add_subcommand(subcommand->name(), subcommand->description());
    subcommand->AddFlags(*cmd);
    // A repeatable option takes one value per occurrence, whatever follows it:
    // `explain --metrics URL FR` names FR, it is not a second URL.
    for (CLI::Option* option : cmd->get_options()) option->allow_extra_args(false);
    parsers.emplace_back(cmd, subcommand.get());
  }

  // Words as people type them: `help` and `help SUBCOMMAND` are --help, `-v` is --version.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "help") {
    args.erase(args.begin());
    args.emplace_back("--help");
  } else if (args.size() == 1 && args[0] == "-v") {
    args[0] = "--version";
  }
  // The first word names a subcommand: a typo is said before CLI11 would take a
  // following --help for the program's own ("reprot --help" printed the top-level help, exit 0).
  if (!args.empty() && !args[0].empty() && args[0][0] != '-' &&
      SayUnknownSubcommand(args[0], table)) {
    return carbonroute::kUsageExitCode;
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first

  Subcommand* chosen = nullptr;
  try {
    app.parse(args);
    for (const auto& [cmd, subcommand] : parsers) {
      if (cmd->parsed()) chosen = subcommand;
    }
    chosen->Validate();
  } catch (const CLI::ParseError& e) {
    if (chosen == nullptr && argc > 1 && argv[1][0] != '-' && e.get_exit_code() != 0 &&
        SayUnknownSubcommand(argv[1], table)) {
      return carbonroute::kUsageExitCode;
    }
    if (chosen == nullptr && e.get_exit_code() != 0 && SayUnknownOptions(argc, argv, parsers)) {
      return carbonroute::kUsageExitCode;
    }
    return carbonroute::UsageExitCode(app.exit(e));
  }
  // SIGINT/SIGTERM stop a long-running subcommand; watched from here, before
  // any library could start a thread.
  std::optional<carbonroute::StopSignals> signals;
  if (chosen->WatchesStopSignals()) signals.emplace();

  absl::StatusOr<std::unique_ptr<carbonroute::net::CurlHttpClient>> http =
      carbonroute::net::CurlHttpClient::Create(std::string("scheduler-lite/") +
                                               CARBONROUTE_VERSION);
  if (!http.ok()) {
    std::cerr << "scheduler-lite: " << http.status().message() << "\n";
    return 1;
  }
  carbonroute::scheduler_lite::ProgramContext context{
      **http, carbonroute::RealClock(), signals ? &*signals : nullptr, std::cout, std::cerr};
  return chosen->Run(context);
}
