#include "base/usage.h"

#include <gtest/gtest.h>

namespace carbonroute {
namespace {

TEST(Usage, EveryParserErrorIsExitCode2) {
  EXPECT_EQ(UsageExitCode(0), 0);
  for (int code : {104, 105, 106, 109, 1, -1}) EXPECT_EQ(UsageExitCode(code), 2) << code;
}

TEST(Usage, EditDistance) {
  EXPECT_EQ(EditDistance("rank", "rank"), 0u);
  EXPECT_EQ(EditDistance("rnak", "rank"), 2u);
  EXPECT_EQ(EditDistance("", "serve"), 5u);
  EXPECT_EQ(EditDistance("window", "windows"), 1u);
}

TEST(Usage, ClosestMatchSuggestsTyposOnly) {
  const std::vector<std::string> commands = {"rank", "explain", "window", "karmada", "serve"};
  EXPECT_EQ(ClosestMatch("rnak", commands), "rank");
  EXPECT_EQ(ClosestMatch("expain", commands), "explain");
  EXPECT_EQ(ClosestMatch("serv", commands), "serve");
  EXPECT_EQ(ClosestMatch("deploy", commands), "");
  EXPECT_EQ(ClosestMatch("de", {"DE", "FR"}), "DE");  // case differences count as edits
}

}  // namespace
}  // namespace carbonroute
