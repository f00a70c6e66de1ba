#include "base/log_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "base/counted.h"
#include "base/listen_address.h"
#include "test/testing/fake_clock.h"

namespace carbonroute {
namespace {

const absl::Time kT = absl::FromUnixMillis(1'795'600'000'123);  // 2026-11-25T09:46:40.123Z

TEST(FormatLogLine, LogfmtQuotesAndEscapesTheMessage) {
  EXPECT_EQ(
      FormatLogLine(LogFormat::kLogfmt, kT, LogLevel::kWarn, "node \"a\" in C:\\x\nnext\ttab\x01"),
      "ts=2026-11-25T09:46:40.123Z level=warn msg=\"node \\\"a\\\" in C:\\\\x\\nnext\\ttab"
      "\\u0001\"\n");
}

TEST(FormatLogLine, JsonIsOneObjectPerLine) {
  EXPECT_EQ(
      FormatLogLine(LogFormat::kJson, kT, LogLevel::kInfo, "say \"hi\""),
      "{\"ts\":\"2026-11-25T09:46:40.123Z\",\"level\":\"info\",\"msg\":\"say \\\"hi\\\"\"}\n");
}

TEST(ParseLog, FormatsAndLevels) {
  EXPECT_EQ(ParseLogFormat("json"), LogFormat::kJson);
  EXPECT_EQ(ParseLogFormat("text"), std::nullopt);
  EXPECT_EQ(ParseLogLevel("warn"), LogLevel::kWarn);
  EXPECT_EQ(ParseLogLevel("warning"), std::nullopt);
}

TEST(NormalizeListenAddress, HostPortOrPortForEveryInterface) {
  EXPECT_EQ(NormalizeListenAddress("127.0.0.1:9464"), "127.0.0.1:9464");
  EXPECT_EQ(NormalizeListenAddress(":9464"), "0.0.0.0:9464");
  EXPECT_EQ(NormalizeListenAddress("[::1]:0"), "[::1]:0");
  EXPECT_EQ(NormalizeListenAddress("9464"), std::nullopt);
  EXPECT_EQ(NormalizeListenAddress("host:65536"), std::nullopt);
  EXPECT_EQ(NormalizeListenAddress("host:"), std::nullopt);
}

TEST(Counted, OneIsSingularEveryOtherCountPlural) {
  EXPECT_EQ(Counted(1, "location"), "1 location");
  EXPECT_EQ(Counted(0, "location"), "0 locations");
  EXPECT_EQ(Counted(2, "series", "series"), "2 series");
}

}  // namespace
TEST(LogLevels, BothProgramsTakeTheCollectorsSixLevels) {
  for (const char* name : kLogLevelNames) {
    ASSERT_TRUE(ParseLogLevel(name).has_value()) << name;
    EXPECT_EQ(LogLevelName(*ParseLogLevel(name)), name);
  }
  EXPECT_FALSE(ParseLogLevel("verbose").has_value());
}

}  // namespace carbonroute
