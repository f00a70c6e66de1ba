// carbonroute-collector: flags → config → daemon → READY=1 → run until SIGTERM/SIGINT.
#include <malloc.h>
#include <signal.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/build_info.h"
#include "base/clock.h"
#include "base/data_files.h"
#include "base/listen_address.h"
#include "base/log_line.h"
#include "base/open_file_limit.h"
#include "base/stop_signals.h"
#include "base/usage.h"
#include "collector/collector_daemon.h"
#include "collector/reloader.h"
#include "config/load_collector_config.h"
#include "net/web_config.h"

namespace {

using carbonroute::CollectorConfig;
using carbonroute::collector::CollectorDaemon;
using carbonroute::collector::NodeOverrides;
using carbonroute::collector::Reloader;

// spdlog's lines in the format Prometheus exporters write (base/log_line.h).
class LineFormatter final : public spdlog::formatter {
 public:
  explicit LineFormatter(carbonroute::LogFormat format) : format_(format) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    carbonroute::LogLevel level = carbonroute::LogLevel::kError;  // err, critical
    if (msg.level == spdlog::level::trace) {
      level = carbonroute::LogLevel::kTrace;
    } else if (msg.level == spdlog::level::debug) {
      level = carbonroute::LogLevel::kDebug;
    } else if (msg.level == spdlog::level::info) {
      level = carbonroute::LogLevel::kInfo;
    } else if (msg.level == spdlog::level::warn) {
      level = carbonroute::LogLevel::kWarn;
    }
    const std::string line =
        carbonroute::FormatLogLine(format_, absl::FromChrono(msg.time), level,
                                   absl::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<LineFormatter>(format_);
  }

 private:
  const carbonroute::LogFormat format_;
};

}  // namespace

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
  std::string config_path;
  std::string check_config_path;
  std::string log_level;
  std::vector<std::string> data_dirs;
  app.add_option("-c,--config", config_path, "YAML configuration file")->check(CLI::ExistingFile);
  app.add_option("--check-config", check_config_path,
                 "validate this configuration file, print the result and exit (0 = valid)");
  app.add_option("--log.level,--log-level", log_level,
                 "trace|debug|info|warn|error|off (overrides the config; --log-level: the old "
                 "name, kept for one release)")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(carbonroute::kLogLevelNames),
                                                     std::end(carbonroute::kLogLevelNames))));
  std::string log_format = "logfmt";
  app.add_option("--log.format", log_format, "logfmt|json")
      ->check(CLI::IsMember({"logfmt", "json"}))
      ->capture_default_str();
  std::string listen_address;
  app.add_option("--web.listen-address", listen_address,
                 "host:port of /metrics and /healthz, or :port for every interface (overrides "
                 "listen_address)");
  NodeOverrides node;
  app.add_option("--node-name", node.name,
                 "this node's name (overrides node.name; e.g. from the downward API)");
  app.add_option("--node-region", node.region, "overrides node.region");
  app.add_option("--node-location", node.location, "overrides node.location");
  app.add_option("--data-dir", data_dirs,
                 "directory searched first for data files named by a relative path (repeatable)");
  std::string web_config_path;
  app.add_option("--web.config.file", web_config_path,
                 "TLS and Basic auth of /metrics and /healthz, in Prometheus exporters' web "
                 "configuration format (tls_server_config, basic_auth_users)")
      ->check(CLI::ExistingFile);
  app.set_version_flag("--version", carbonroute::VersionLine("carbonroute-collector"));
  try {
    app.parse(argc, argv);
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

  spdlog::set_default_logger(spdlog::stderr_logger_mt("carbonroute"));
  spdlog::set_formatter(std::make_unique<LineFormatter>(*carbonroute::ParseLogFormat(log_format)));
  if (!listen_address.empty()) {
    std::optional<std::string> normalized = carbonroute::NormalizeListenAddress(listen_address);
    if (!normalized) {
      std::cerr << "--web.listen-address: expected host:port such as 127.0.0.1:9464, or :9464 "
                   "for every interface, got \""
                << listen_address << "\"\n";
      return 2;
    }
    listen_address = *std::move(normalized);
  }

  carbonroute::net::WebConfig web_config;  // plain HTTP, no authentication
  if (!web_config_path.empty()) {  // a mistake in it is a usage error, found before anything starts
    absl::StatusOr<carbonroute::net::WebConfig> loaded =
        carbonroute::net::LoadWebConfig(web_config_path);
    if (!loaded.ok()) {
      std::cerr << "--web.config.file: " << loaded.status().message() << "\n";
      return 2;
    }
    web_config = *std::move(loaded);
  }
  if (!check_config_path.empty()) {
    absl::StatusOr<CollectorConfig> config = carbonroute::LoadCollectorConfig(check_config_path);
    if (!config.ok()) {
      std::cerr << config.status().message() << "\n";
      return 2;
    }
    node.ApplyTo(*config);
    // What start-up checks, short of calling an API (the unit's ExecStartPre relies on it).
    std::vector<std::string> missing;
    const absl::Status startup = CollectorDaemon::CheckStartup(
        *config,
        carbonroute::DataPathsFrom(data_dirs,
                                   std::filesystem::path(check_config_path).parent_path().string()),
        &missing);
    if (!startup.ok()) {
      std::cerr << check_config_path << ": " << startup.message() << "\n";
      return 2;
    }
    if (!missing.empty()) {  // valid, but it cannot start here
      for (const std::string& line : missing)
        std::cerr << check_config_path << ": " << line << "\n";
      std::cerr << check_config_path << ": valid, but " << missing.size()
                << (missing.size() == 1 ? " thing it needs is" : " things it needs are")
                << " not available here (exit 3)\n";
      return 3;
    }
    const std::size_t n = config->providers.size();
    std::cout << check_config_path << ": OK (" << n << (n == 1 ? " provider" : " providers")
              << ")\n";
    return 0;
  }
  if (config_path.empty()) {
    std::cerr << "carbonroute-collector: --config FILE is required (see --help)\n";
    return 2;
  }
  absl::StatusOr<CollectorConfig> config = carbonroute::LoadCollectorConfig(config_path);
  if (!config.ok()) {
    std::cerr << config.status().message() << "\n";
    return 2;
  }
  spdlog::set_level(spdlog::level::from_str(log_level.empty() ? config->log_level : log_level));
  node.ApplyTo(*config);
  if (!listen_address.empty()) config->listen_address = listen_address;
  const carbonroute::DataPaths data = carbonroute::DataPathsFrom(
      data_dirs, std::filesystem::path(config_path).parent_path().string());
  {
    // One rule with --check-config: what the configuration names and cannot be found (a trace,
    // a matrix, a location) is a configuration error, exit 2; what this machine lacks (a
    // credential, the database directory) is a start-up failure, exit 1, from Create below.
    std::vector<std::string> unavailable;
    const absl::Status startup = CollectorDaemon::CheckStartup(*config, data, &unavailable);
    if (!startup.ok()) {
      std::cerr << config_path << ": " << startup.message() << "\n";
      return 2;
    }
  }

  Reloader reloader(config_path, node);
  carbonroute::StopSignals signals(
      [](int received) {
        spdlog::info("received {}, stopping", received == SIGINT ? "SIGINT" : "SIGTERM");
      },
      [&reloader] {  // systemctl reload waits for READY=1 after RELOADING=1 (sd_notify(3))
        sd_notify(0, "RELOADING=1");
        reloader.Reload().IgnoreError();  // logged by Reload
        sd_notify(0, "READY=1");
      });
  absl::Notification& stop = signals.stop();
  int exit_code = 0;
  {
    absl::StatusOr<std::unique_ptr<carbonroute::collector::CollectorDaemon>> daemon =
        carbonroute::collector::CollectorDaemon::Create(*config, data, carbonroute::RealClock(),
                                                        /*http=*/nullptr, web_config);
    if (!daemon.ok()) {
      spdlog::critical("{}", std::string(daemon.status().message()));
      exit_code = 1;
    } else {
      spdlog::info(
          "{}; serving {}://{}:{}/metrics",
          config->node.name.empty()
              ? std::string("no node name (it probes no peer)")
              : absl::StrCat("node ", config->node.name, " (region \"", config->node.region,
                             "\", location \"", config->node.location, "\")"),
          (*daemon)->tls() ? "https" : "http",
          config->listen_address.substr(0, config->listen_address.rfind(':')), (*daemon)->port());
      reloader.Attach([daemon = daemon->get()](const CollectorConfig& reloaded) {
        return daemon->ReloadPeers(reloaded);
      });
      sd_notify(0, "READY=1");
      (*daemon)->Run(stop);
      sd_notify(0, "STOPPING=1");
      reloader.Attach(nullptr);
    }
  }  // the daemon (HTTP endpoint, then cache) is closed here
  spdlog::info("stopped");
  return exit_code;
}
