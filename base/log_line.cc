#include "base/log_line.h"

#include "absl/strings/str_cat.h"
#include "base/json_escape.h"

namespace carbonroute {
std::optional<LogFormat> ParseLogFormat(absl::string_view text) {
  if (text == "logfmt") return LogFormat::kLogfmt;
  if (text == "json") return LogFormat::kJson;
  return std::nullopt;
}

std::optional<LogLevel> ParseLogLevel(absl::string_view text) {
  for (LogLevel level : {LogLevel::kTrace, LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn,
                         LogLevel::kError, LogLevel::kOff}) {
    if (text == LogLevelName(level)) return level;
  }
  return std::nullopt;
}

absl::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return "trace";
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kOff:
      return "off";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

std::string FormatLogLine(LogFormat format, absl::Time time, LogLevel level,
                          absl::string_view message) {
  const std::string ts = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", time, absl::UTCTimeZone());
  std::string line;
  line.reserve(message.size() + 64);
  if (format == LogFormat::kJson) {
    absl::StrAppend(&line, R"({"ts":")", ts, R"(","level":")", LogLevelName(level), R"(","msg":")");
    AppendJsonEscaped(line, message);
    line += "\"}\n";
    return line;
  }
  absl::StrAppend(&line, "ts=", ts, " level=", LogLevelName(level), " msg=\"");
  AppendJsonEscaped(line, message);
  line += "\"\n";
  return line;
}

}  // namespace carbonroute
