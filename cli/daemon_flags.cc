#include "cli/daemon_flags.h"

#include <iterator>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "base/listen_address.h"

namespace carbonroute::cli {

void DaemonFlags::AddTo(CLI::App& cmd) {
  std::string level_names = "--log.level";
  std::string level_help = "trace|debug|info|warn|error|off";
  if (!defaults_.old_log_level_flag.empty()) {
    level_names += "," + defaults_.old_log_level_flag;
    level_help += " (" + defaults_.old_log_level_flag + ": the old name, kept for one release)";
  }
  if (defaults_.log_level.empty()) level_help += "; overrides the configuration's log_level";
  CLI::Option* level = cmd.add_option(level_names, log_level_, level_help)
                           ->check(CLI::IsMember(std::vector<std::string>(
                               std::begin(kLogLevelNames), std::end(kLogLevelNames))));
  if (!defaults_.log_level.empty()) level->capture_default_str();
  cmd.add_option("--log.format", log_format_, "logfmt|json")
      ->check(CLI::IsMember({"logfmt", "json"}))
      ->capture_default_str();

  std::string listen_names = "--web.listen-address";
  std::string listen_help = "host:port of " + defaults_.served + ", or :port for every interface";
  if (!defaults_.old_listen_flag.empty()) {
    listen_names += "," + defaults_.old_listen_flag;
    listen_help += " (" + defaults_.old_listen_flag + ": the old name, kept for one release)";
  }
  if (defaults_.listen_address.empty())
    listen_help += "; overrides the configuration's listen_address";
  CLI::Option* listen = cmd.add_option(listen_names, listen_address_, listen_help);
  if (!defaults_.listen_address.empty()) listen->capture_default_str();

  cmd.add_option("--web.config.file", web_config_file_,
                 "TLS and Basic auth of " + defaults_.served +
                     ", in Prometheus exporters' web configuration format (tls_server_config, "
                     "basic_auth_users)")
      ->check(CLI::ExistingFile);
}

void DaemonFlags::Check() {
  if (!listen_address_.empty()) {
    std::optional<std::string> normalized = NormalizeListenAddress(listen_address_);
    if (!normalized) {
      throw CLI::ValidationError(
          "--web.listen-address",
          "expected host:port such as 127.0.0.1:9464, or :9464 for every interface, got \"" +
              listen_address_ + "\"");
    }
    listen_address_ = *std::move(normalized);
  }
  if (!web_config_file_.empty()) {
    absl::StatusOr<net::WebConfig> loaded = net::LoadWebConfig(web_config_file_);
    if (!loaded.ok()) {
      throw CLI::ValidationError("--web.config.file", std::string(loaded.status().message()));
    }
    web_ = *std::move(loaded);
  }
}

std::optional<LogLevel> DaemonFlags::log_level() const {
  if (log_level_.empty()) return std::nullopt;
  return ParseLogLevel(log_level_);
}

}  // namespace carbonroute::cli
