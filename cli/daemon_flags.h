// File: cli/daemon_flags.h
//
// The flags every long-running carbonroute program takes, declared once for
// carbonroute-collector and scheduler-lite's serve, hold, karmada
// --controller and route --controller, so that both programs accept the same words:
//   --log.level           trace|debug|info|warn|error|off (base/log_line.h)
//   --log.format          logfmt|json
//   --web.listen-address  host:port, or :port for every interface
//   --web.config.file     TLS and Basic auth of the program's HTTP server, in
//                         Prometheus exporters' web configuration format
//                         (net/web_config.h)
// Their names follow the Prometheus exporters' (node_exporter's
// --web.listen-address, --web.config.file, --log.level, --log.format).
//
// Errors: Check() throws CLI::ValidationError naming the flag and the value
// (a listen address that is not host:port, a web configuration file that is
// missing or wrong, named by its key); both programs turn it into exit 2.
// Thread safety: not thread-safe; used from main's thread.
#ifndef CARBONROUTE_CLI_DAEMON_FLAGS_H_
#define CARBONROUTE_CLI_DAEMON_FLAGS_H_

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "base/log_line.h"
#include "net/web_config.h"

namespace carbonroute::cli {

struct DaemonFlagDefaults {
  // The level when --log.level is not given; "" = none (the collector's
  // configuration file says it).
  std::string log_level = "info";
  // The address when --web.listen-address is not given; "" = none (the
  // collector's configuration file says it).
  std::string listen_address;
  // What is served there, for the help ("/metrics and /healthz").
  std::string served = "/metrics and /healthz";
  // A former name of --web.listen-address still taken ("--listen"), or "".
  std::string old_listen_flag;
  // A former name of --log.level still taken ("--log-level"), or "".
  std::string old_log_level_flag;
};

class DaemonFlags {
 public:
  explicit DaemonFlags(DaemonFlagDefaults defaults = {}) : defaults_(std::move(defaults)) {
    log_level_ = defaults_.log_level;
    listen_address_ = defaults_.listen_address;
  }

  // Adds the four flags to `cmd`.
  void AddTo(CLI::App& cmd);
  // After parsing: makes the listen address "host:port" and loads the web
  // configuration. Throws CLI::ValidationError (see above).
  void Check();

  // nullopt when --log.level was not given and there is no default.
  std::optional<LogLevel> log_level() const;
  LogFormat log_format() const { return *ParseLogFormat(log_format_); }
  // "host:port" after Check(); "" when not given and there is no default.
  const std::string& listen_address() const { return listen_address_; }
  // Plain HTTP and no authentication unless --web.config.file says otherwise.
  const net::WebConfig& web() const { return web_; }

 private:
  DaemonFlagDefaults defaults_;
  std::string log_level_;
  std::string log_format_ = "logfmt";
  std::string listen_address_;
  std::string web_config_file_;
  net::WebConfig web_;
};

}  // namespace carbonroute::cli

#endif  // CARBONROUTE_CLI_DAEMON_FLAGS_H_
