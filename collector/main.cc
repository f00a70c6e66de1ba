// carbonroute-collector: parses the flags, sets up logging, then checks a configuration
// (--check-config) or runs the daemon (collector/collector_commands.h).
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "base/build_info.h"
#include "base/log_line.h"
#include "base/open_file_limit.h"
#include "base/usage.h"
#include "cli/logging.h"
#include "collector/collector_commands.h"

// An exception escaping main (a library failing at start-up) ends the process
// with its message, which is what should happen then.
int main(int argc, char** argv) {     // NOLINT(bugprone-exception-escape)
  carbonroute::RaiseOpenFileLimit();  // the HTTP server takes up to 2048 connections
  // Memory policy, set before any thread starts (measured with
  // bench/prober_footprint at 1000 peers and repeated scrapes):
  //  - one malloc arena: glibc otherwise gives each thread that allocates
  //    (prober, poller, each HTTP worker) an arena of its own, and what a
  //    scrape frees in a worker's arena stays resident (peak RSS 37.5 → 29.7 MB
  //    after three scrapes). Nothing here allocates in parallel at rates
  //    where one arena's lock would matter.
  //  - blocks of 64 KiB and more straight from mmap, so a scrape's page
  //    buffers go back to the kernel when freed instead of staying in the heap.
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  CLI::App app{
      "carbonroute-collector: polls carbon-intensity providers, caches readings in SQLite "
      "and exports them as Prometheus metrics."};
  app.failure_message([](const CLI::App* failed, const CLI::Error& error) {
    return "carbonroute-collector: " + CLI::FailureMessage::simple(failed, error);
  });
  carbonroute::collector::CollectorFlags flags;
  app.add_option("-c,--config", flags.config_path, "YAML configuration file")
      ->check(CLI::ExistingFile);
  app.add_option("--check-config", flags.check_config_path,
                 "validate this configuration file, print the result and exit: 0 valid, 2 invalid "
                 "(named), 3 valid but needs what this machine lacks (credentials, a directory, "
                 "a Kubernetes API)");
  flags.daemon.AddTo(app);
  app.add_option("--node-name", flags.node.name,
                 "this node's name (overrides node.name; e.g. from the downward API)");
  app.add_option("--node-region", flags.node.region, "overrides node.region");
  app.add_option("--node-location", flags.node.location, "overrides node.location");
  app.add_option("--data-dir", flags.data_dirs,
                 "directory searched first for data files named by a relative path (repeatable)");
  app.set_version_flag("--version", carbonroute::VersionLine("carbonroute-collector"));
  try {
    app.parse(argc, argv);
    flags.daemon.Check();  // a mistake in the web configuration is found before anything starts
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0) {  // a mistyped option: named with the closest known one
      std::vector<std::string> long_names = {"help"};
      for (const CLI::Option* option : app.get_options()) {
        for (const std::string& name : option->get_lnames()) long_names.push_back(name);
      }
      const std::vector<std::string> unknown =
          carbonroute::UnknownOptions(std::vector<std::string>(argv + 1, argv + argc), long_names);
      for (const std::string& line : unknown) {
        std::cerr << "carbonroute-collector: " << line << " (see --help)\n";
      }
      if (!unknown.empty()) return carbonroute::kUsageExitCode;
    }
    return carbonroute::UsageExitCode(app.exit(e));  // every usage error exits 2
  }
  // The level is set again once the configuration file is read (its log_level).
  carbonroute::cli::InstallLogger(flags.daemon.log_format(),
                                  flags.daemon.log_level().value_or(carbonroute::LogLevel::kInfo));
  if (!flags.check_config_path.empty()) {
    return carbonroute::collector::CheckConfig(flags, std::cout, std::cerr);
  }
  if (flags.config_path.empty()) {
    std::cerr << "carbonroute-collector: --config FILE is required (see --help)\n";
    return carbonroute::kUsageExitCode;
  }
  return carbonroute::collector::RunCollector(flags);
}
