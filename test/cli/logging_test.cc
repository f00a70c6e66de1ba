#include "cli/logging.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <chrono>
#include <sstream>

namespace carbonroute::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

// A logger as InstallLogger makes one, writing to `out`.
std::shared_ptr<spdlog::logger> LoggerTo(std::ostringstream& out, LogFormat format,
                                         LogLevel level) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  sink->set_formatter(MakeLineFormatter(format));
  auto logger = std::make_shared<spdlog::logger>("t", std::move(sink));
  logger->set_level(SpdlogLevel(level));
  return logger;
}

TEST(Logging, SpdlogsLinesAreTheLinesBaseFormats) {
  std::ostringstream out;
  auto logger = LoggerTo(out, LogFormat::kLogfmt, LogLevel::kInfo);
  // A message with braces is written as it is, never taken for a format string.
  logger->warn(std::string("node \"a\" {x}"));
  EXPECT_THAT(out.str(),
              MatchesRegex(R"(ts=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{3}Z level=warn )"
                           R"(msg="node \\"a\\" \{x\}"
)"));
  std::ostringstream json;
  LoggerTo(json, LogFormat::kJson, LogLevel::kInfo)->critical("gone");
  EXPECT_THAT(json.str(), HasSubstr(R"("level":"error","msg":"gone"})"));  // critical is error
}

TEST(Logging, TheTimeIsTheMessagesAndTheLevelFilters) {
  std::ostringstream out;
  auto logger = LoggerTo(out, LogFormat::kLogfmt, LogLevel::kWarn);
  logger->info("not shown");
  logger->debug("not shown");
  // spdlog stamps each message; the formatter writes that stamp, in UTC.
  spdlog::details::log_msg msg(spdlog::source_loc{}, "t", spdlog::level::err, "shown");
  msg.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'795'600'000'123));
  spdlog::memory_buf_t line;
  MakeLineFormatter(LogFormat::kLogfmt)->format(msg, line);
  EXPECT_EQ(std::string(line.data(), line.size()),
            "ts=2026-11-25T09:46:40.123Z level=error msg=\"shown\"\n");
  logger->error("shown");
  EXPECT_THAT(out.str(), Not(HasSubstr("not shown")));
  EXPECT_THAT(out.str(), HasSubstr("level=error msg=\"shown\""));
}

TEST(Logging, EveryLevelNameMapsToItsSpdlogLevel) {
  EXPECT_EQ(SpdlogLevel(LogLevel::kTrace), spdlog::level::trace);
  EXPECT_EQ(SpdlogLevel(LogLevel::kDebug), spdlog::level::debug);
  EXPECT_EQ(SpdlogLevel(LogLevel::kInfo), spdlog::level::info);
  EXPECT_EQ(SpdlogLevel(LogLevel::kWarn), spdlog::level::warn);
  EXPECT_EQ(SpdlogLevel(LogLevel::kError), spdlog::level::err);
  EXPECT_EQ(SpdlogLevel(LogLevel::kOff), spdlog::level::off);
  for (const char* name : kLogLevelNames) {  // the same words as spdlog's own
    EXPECT_EQ(SpdlogLevel(*ParseLogLevel(name)), spdlog::level::from_str(name)) << name;
  }
}

TEST(Logging, InstallLoggerReplacesTheDefaultAtTheGivenLevel) {
  const std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  InstallLogger(LogFormat::kJson, LogLevel::kError);
  EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::err);
  EXPECT_FALSE(spdlog::default_logger()->should_log(spdlog::level::warn));
  SetLogLevel(LogLevel::kDebug);
  EXPECT_TRUE(spdlog::default_logger()->should_log(spdlog::level::debug));
  InstallLogger(LogFormat::kLogfmt, LogLevel::kInfo);  // twice in one process: no registry clash
  spdlog::set_default_logger(previous);
}

}  // namespace
}  // namespace carbonroute::cli
