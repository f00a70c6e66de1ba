#include "cli/logging.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <string>

namespace carbonroute::cli {
namespace {

LogLevel OurLevel(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return LogLevel::kTrace;
    case spdlog::level::debug:
      return LogLevel::kDebug;
    case spdlog::level::info:
      return LogLevel::kInfo;
    case spdlog::level::warn:
      return LogLevel::kWarn;
    default:  // err, critical
      return LogLevel::kError;
  }
}

class LineFormatter final : public spdlog::formatter {
 public:
  explicit LineFormatter(LogFormat format) : format_(format) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const std::string line =
        FormatLogLine(format_, absl::FromChrono(msg.time), OurLevel(msg.level),
                      absl::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<LineFormatter>(format_);
  }

 private:
  const LogFormat format_;
};

}  // namespace

std::unique_ptr<spdlog::formatter> MakeLineFormatter(LogFormat format) {
  return std::make_unique<LineFormatter>(format);
}

spdlog::level::level_enum SpdlogLevel(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return spdlog::level::trace;
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarn:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
    case LogLevel::kOff:
      return spdlog::level::off;
  }
  return spdlog::level::info;
}

void InstallLogger(LogFormat format, LogLevel level) {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  sink->set_formatter(MakeLineFormatter(format));
  auto logger = std::make_shared<spdlog::logger>("carbonroute", std::move(sink));
  logger->set_level(SpdlogLevel(level));
  spdlog::set_default_logger(std::move(logger));
}

void SetLogLevel(LogLevel level) { spdlog::set_level(SpdlogLevel(level)); }

}  // namespace carbonroute::cli
