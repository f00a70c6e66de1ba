#include "collector/collector_commands.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/clock.h"
#include "base/data_files.h"
#include "base/stop_signals.h"
#include "cli/logging.h"
#include "collector/collector_daemon.h"
#include "config/load_collector_config.h"

namespace carbonroute::collector {
namespace {

// The configuration as both commands read it: the file, the --node-*
// overrides, then what start-up checks short of calling an API. A mistake is
// said on `err` (nullopt: exit 2); what this machine lacks goes to `unavailable`.
struct ReadConfig {
  CollectorConfig config;
  DataPaths data;
};
std::optional<ReadConfig> Read(const std::string& path, const CollectorFlags& flags,
                               std::ostream& err, std::vector<std::string>& unavailable) {
  absl::StatusOr<CollectorConfig> config = LoadCollectorConfig(path, flags.node.name);
  if (!config.ok()) {
    err << config.status().message() << "\n";
    return std::nullopt;
  }
  flags.node.ApplyTo(*config);
  ReadConfig read{
      *std::move(config),
      DataPathsFrom(flags.data_dirs, std::filesystem::path(path).parent_path().string())};
  // One rule for both: what the configuration names and cannot be found (a
  // trace, a matrix, a location) is a configuration error; what this machine
  // lacks (a credential, the database directory) is not.
  const absl::Status startup = CollectorDaemon::CheckStartup(read.config, read.data, &unavailable);
  if (!startup.ok()) {
    err << path << ": " << startup.message() << "\n";
    return std::nullopt;
  }
  return read;
}

}  // namespace

int CheckConfig(const CollectorFlags& flags, std::ostream& out, std::ostream& err) {
  const std::string& path = flags.check_config_path;
  std::vector<std::string> missing;
  std::optional<ReadConfig> read = Read(path, flags, err, missing);
  if (!read) return 2;
  if (!missing.empty()) {  // valid, but it cannot start here (the unit's ExecStartPre relies on it)
    for (const std::string& line : missing) err << path << ": " << line << "\n";
    err << path << ": valid, but " << missing.size()
        << (missing.size() == 1 ? " thing it needs is" : " things it needs are")
        << " not available here (exit 3)\n";
    return 3;
  }
  const std::size_t n = read->config.providers.size();
  out << path << ": OK (" << n << (n == 1 ? " provider" : " providers") << ")\n";
  return 0;
}

int RunCollector(const CollectorFlags& flags) {
  std::vector<std::string> unavailable;  // said by Create below, as a start-up failure (exit 1)
  std::optional<ReadConfig> read = Read(flags.config_path, flags, std::cerr, unavailable);
  if (!read) return 2;
  CollectorConfig& config = read->config;
  const std::optional<LogLevel> level = flags.daemon.log_level();
  cli::SetLogLevel(level ? *level : ParseLogLevel(config.log_level).value_or(LogLevel::kInfo));
  if (!flags.daemon.listen_address().empty()) config.listen_address = flags.daemon.listen_address();

  Reloader reloader(flags.config_path, flags.node);
  StopSignals signals(
      [](int received) {
        spdlog::info("received {}, stopping", received == SIGINT ? "SIGINT" : "SIGTERM");
      },
      [&reloader] {  // systemctl reload waits for READY=1 after RELOADING=1 (sd_notify(3))
        sd_notify(0, "RELOADING=1");
        reloader.Reload().IgnoreError();  // logged by Reload
        sd_notify(0, "READY=1");
      });
  int exit_code = 0;
  {
    absl::StatusOr<std::unique_ptr<CollectorDaemon>> daemon = CollectorDaemon::Create(
        config, read->data, RealClock(), /*http=*/nullptr, flags.daemon.web());
    if (!daemon.ok()) {
      spdlog::critical("{}", std::string(daemon.status().message()));
      exit_code = 1;
    } else {
      spdlog::info("{}; serving {}://{}:{}/metrics",
                   config.node.name.empty()
                       ? std::string("no node name (it probes no peer)")
                       : absl::StrCat("node ", config.node.name, " (region \"", config.node.region,
                                      "\", location \"", config.node.location, "\")"),
                   (*daemon)->tls() ? "https" : "http",
                   config.listen_address.substr(0, config.listen_address.rfind(':')),
                   (*daemon)->port());
      reloader.Attach([daemon = daemon->get()](const CollectorConfig& reloaded) {
        return daemon->ReloadPeers(reloaded);
      });
      sd_notify(0, "READY=1");
      (*daemon)->Run(signals.stop());
      sd_notify(0, "STOPPING=1");
      reloader.Attach(nullptr);
    }
  }  // the daemon (HTTP endpoint, then cache) is closed here
  spdlog::info("stopped");
  return exit_code;
}

}  // namespace carbonroute::collector
