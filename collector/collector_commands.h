// File: collector/collector_commands.h
//
// What carbonroute-collector does once its flags are parsed (collector/main.cc
// parses them and sets up logging): check a configuration (--check-config) or
// run the daemon. Both read the configuration the same way (the file, then
// the --node-* overrides, then CollectorDaemon::CheckStartup), so what
// --check-config accepts is what starts.
//
// Exit codes (README "Exit codes"):
//   CheckConfig   0 valid; 2 invalid (the file, or a file or name it gives);
//                 3 valid, but what this machine lacks (a credential, the
//                 database directory) is named, one line each.
//   RunCollector  0 stopped by SIGTERM/SIGINT; 1 a start-up failure (a
//                 credential, the database, the port); 2 a configuration
//                 error.
// Thread safety: called once, from main's thread. RunCollector blocks until
// SIGTERM or SIGINT; SIGHUP reloads rtt.peers (collector/reloader.h).
#ifndef CARBONROUTE_COLLECTOR_COLLECTOR_COMMANDS_H_
#define CARBONROUTE_COLLECTOR_COLLECTOR_COMMANDS_H_

#include <ostream>
#include <string>
#include <vector>

#include "cli/daemon_flags.h"
#include "collector/reloader.h"

namespace carbonroute::collector {

struct CollectorFlags {
  std::string config_path;             // --config
  std::string check_config_path;       // --check-config
  std::vector<std::string> data_dirs;  // --data-dir, searched first for data files
  NodeOverrides node;                  // --node-name, --node-region, --node-location
  // --log.level (the configuration's log_level unless given), --log.format,
  // --web.listen-address (the configuration's listen_address unless given),
  // --web.config.file: the same flags as scheduler-lite's daemons.
  cli::DaemonFlags daemon{{.log_level = "",
                           .listen_address = "",
                           .served = "/metrics, /healthz and the APIs",
                           .old_log_level_flag = "--log-level"}};
};

// --check-config: says "PATH: OK (N providers)" on `out`, or what is wrong on `err`.
int CheckConfig(const CollectorFlags& flags, std::ostream& out, std::ostream& err);

// Runs the daemon (collector/collector_daemon.h) under systemd's notify
// protocol until SIGTERM/SIGINT. Sets spdlog's level; the caller has set its
// sink and format.
int RunCollector(const CollectorFlags& flags);

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_COLLECTOR_COMMANDS_H_
