// File: cli/logging.h
//
// The one way both programs log: spdlog's default logger, writing to stderr
// the lines base/log_line.h formats (logfmt or JSON, as Prometheus exporters
// write them). Every room logs with spdlog::info/warn/error/debug; the
// programs' mains and scheduler-lite's daemons (serve, hold, karmada
// --controller, route --controller) install the logger once, from --log.format and --log.level
// (cli/daemon_flags.h). Tests read what a room logged with
// test/testing/captured_log.h, which installs the same formatter over a
// string stream.
//
// Times are the system clock's when the line is written (spdlog's), in UTC
// with milliseconds; levels map one to one (spdlog's critical is written as
// "error", the highest of base/log_line.h's levels).
//
// Thread safety: InstallLogger and SetLogLevel replace process-wide state:
// call them from main's thread before other threads log. Logging itself is
// safe from any thread (spdlog's _mt sinks).
#ifndef CARBONROUTE_CLI_LOGGING_H_
#define CARBONROUTE_CLI_LOGGING_H_

#include <spdlog/spdlog.h>

#include <memory>

#include "base/log_line.h"

namespace carbonroute::cli {

// spdlog's lines as FormatLogLine writes them.
std::unique_ptr<spdlog::formatter> MakeLineFormatter(LogFormat format);

// spdlog's level for ours (kOff drops every line).
spdlog::level::level_enum SpdlogLevel(LogLevel level);

// Makes spdlog's default logger write `format` lines to stderr at `level` and above.
void InstallLogger(LogFormat format, LogLevel level);

// Changes the default logger's level only (the collector's configuration file
// may name it after the logger is installed).
void SetLogLevel(LogLevel level);

}  // namespace carbonroute::cli

#endif  // CARBONROUTE_CLI_LOGGING_H_
