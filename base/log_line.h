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
// LineLogger writes such lines to a stream (scheduler-lite serve); the
// collector's spdlog formatter uses FormatLogLine for the same lines.
//
// Thread safety: FormatLogLine is pure; LineLogger is safe for concurrent use.
#ifndef CARBONROUTE_BASE_LOG_LINE_H_
#define CARBONROUTE_BASE_LOG_LINE_H_

#include <optional>
#include <ostream>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/clock.h"

namespace carbonroute {

enum class LogFormat { kLogfmt, kJson };
// kTrace is kept apart from kDebug for the collector's spdlog; a LineLogger
// writes both. kOff drops every line.
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

class LineLogger {
 public:
  // Borrows `out` and `clock`. Lines below `min_level` are dropped.
  LineLogger(std::ostream& out, LogFormat format, LogLevel min_level, Clock& clock)
      : out_(out), format_(format), min_level_(min_level), clock_(clock) {}

  void Log(LogLevel level, absl::string_view message);
  void Info(absl::string_view message) { Log(LogLevel::kInfo, message); }
  void Warn(absl::string_view message) { Log(LogLevel::kWarn, message); }
  void Error(absl::string_view message) { Log(LogLevel::kError, message); }

 private:
  std::ostream& out_;
  const LogFormat format_;
  const LogLevel min_level_;
  Clock& clock_;
  absl::Mutex mutex_;  // one line at a time
};

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_LOG_LINE_H_
