// File: base/log_line.h
//
// One log line in the formats Prometheus exporters write (go-kit/log, as
// node_exporter and blackbox_exporter do with --log.format):
//   logfmt  ts=2026-11-25T08:00:00.123Z level=info msg="serving http://…"
//           (https://brandur.org/logfmt: key=value pairs; a value with a space,
//           '=' or '"' is quoted, '"' and '\' escaped, control characters as \n, \t, \uXXXX)
//   json    {"ts":"2026-11-25T08:00:00.123Z","level":"info","msg":"…"}
// Levels: debug, info, warn, error. Times are UTC with milliseconds.
//
// Both programs log through spdlog, whose lines cli/logging.h formats with
// FormatLogLine; this room (Abseil only) holds the format and the names.
//
// Thread safety: every function here is pure.
#ifndef CARBONROUTE_BASE_LOG_LINE_H_
#define CARBONROUTE_BASE_LOG_LINE_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace carbonroute {

enum class LogFormat { kLogfmt, kJson };
// As spdlog's levels (cli/logging.h maps them one to one); kOff drops every line.
enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError, kOff };

// The --log.level values both programs take (one list: the collector's spdlog levels).
inline constexpr const char* kLogLevelNames[] = {"trace", "debug", "info", "warn", "error", "off"};

// "logfmt" or "json"; nullopt otherwise.
std::optional<LogFormat> ParseLogFormat(absl::string_view text);
// One of kLogLevelNames; nullopt otherwise.
std::optional<LogLevel> ParseLogLevel(absl::string_view text);
absl::string_view LogLevelName(LogLevel level);

// The line, with its trailing newline.
std::string FormatLogLine(LogFormat format, absl::Time time, LogLevel level,
                          absl::string_view message);

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_LOG_LINE_H_
