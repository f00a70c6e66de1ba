#include "model_sources/exposition_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "test/testing/status_matchers.h"

namespace carbonroute::model_sources {
namespace {

using ::testing::ElementsAre;
using testing::IsOk;
using ::testing::Pair;
using testing::StatusIs;

Exposition ParseOk(absl::string_view text) {
  absl::StatusOr<Exposition> parsed = ParseExposition(text);
  EXPECT_THAT(parsed, IsOk());
  return parsed.ok() ? *std::move(parsed) : Exposition{};
}

TEST(ParseExposition, HelpTypeLabelsAndValues) {
  Exposition e = ParseOk(
      "# HELP carbonroute_x Some help with \\\\ and \\n escapes.\n"
      "# TYPE carbonroute_x gauge\n"
      "carbonroute_x{location=\"DE\",provider=\"replay\"} 454.59\n"
      "carbonroute_x{location=\"FR\"} 69.39 1795312800000\n"
      "no_labels 3\n");
  ASSERT_EQ(e.samples.size(), 3u);
  EXPECT_EQ(e.families.at("carbonroute_x").type, "gauge");
  EXPECT_EQ(e.families.at("carbonroute_x").help, "Some help with \\ and \n escapes.");
  EXPECT_EQ(e.samples[0].name, "carbonroute_x");
  EXPECT_THAT(e.samples[0].labels, ElementsAre(Pair("location", "DE"), Pair("provider", "replay")));
  EXPECT_EQ(e.samples[0].value, 454.59);
  EXPECT_EQ(e.samples[0].timestamp_ms, std::nullopt);
  EXPECT_EQ(e.samples[1].timestamp_ms, 1795312800000);
  EXPECT_TRUE(e.samples[2].labels.empty());
  EXPECT_EQ(e.samples[2].Label("missing"), "");
}

TEST(ParseExposition, LabelValueEscapes) {
  Exposition e = ParseOk("m{a=\"quote \\\" backslash \\\\ newline \\n end\",b=\"{},=\"} 1\n");
  ASSERT_EQ(e.samples.size(), 1u);
  EXPECT_EQ(e.samples[0].Label("a"), "quote \" backslash \\ newline \n end");
  EXPECT_EQ(e.samples[0].Label("b"), "{},=");
}

TEST(ParseExposition, SpecialValues) {
  Exposition e = ParseOk("a NaN\nb +Inf\nc -Inf\nd 1e-3\ne -0\nf +5\n");
  ASSERT_EQ(e.samples.size(), 6u);
  EXPECT_TRUE(std::isnan(e.samples[0].value));
  EXPECT_EQ(e.samples[1].value, INFINITY);
  EXPECT_EQ(e.samples[2].value, -INFINITY);
  EXPECT_EQ(e.samples[3].value, 0.001);
  EXPECT_EQ(e.samples[4].value, 0);
  EXPECT_EQ(e.samples[5].value, 5);
}

TEST(ParseExposition, CommentsBlankLinesCrlfTrailingCommaAndSpaces) {
  Exposition e = ParseOk(
      "# just a comment\r\n"
      "\r\n"
      "   \n"
      "m { a = \"1\" , b=\"2\", }   7   \r\n"
      "#HELP not_a_help_line because no space\n"
      "histogram_bucket{le=\"+Inf\"} 4\n"
      "name:with:colons 1\n");
  ASSERT_EQ(e.samples.size(), 3u);
  EXPECT_THAT(e.samples[0].labels, ElementsAre(Pair("a", "1"), Pair("b", "2")));
  EXPECT_EQ(e.samples[0].value, 7);
  EXPECT_EQ(e.samples[1].Label("le"), "+Inf");
  EXPECT_EQ(e.samples[2].name, "name:with:colons");
}

TEST(ParseExposition, EmptyDocumentHasNoSamples) {
  EXPECT_TRUE(ParseOk("").samples.empty());
  EXPECT_TRUE(ParseOk("\n\n# only comments\n").samples.empty());
}

struct BadCase {
  const char* text;
  const char* message;
};

class ParseExpositionErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ParseExpositionErrors, NameTheLineAndTheProblem) {
  EXPECT_THAT(ParseExposition(GetParam().text),
              StatusIs(absl::StatusCode::kInvalidArgument, GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ParseExpositionErrors,
    ::testing::Values(
        BadCase{"ok 1\n9bad 1\n", "line 2: expected a metric name, found \"9bad 1\""},
        BadCase{"m{a=\"1\" 2\n", "line 1: expected ',' or '}' after a label"},
        BadCase{"m{a=1} 2\n", "line 1: expected '\"', found \"1} 2\""},
        BadCase{"m{a=\"1} 2\n", "line 1: unterminated label value"},
        BadCase{"m{a=\"\\t\"} 2\n", "line 1: invalid escape \"\\t\" in label value"},
        BadCase{"m{a=\"1\",a=\"2\"} 2\n", "line 1: label a appears twice"},
        BadCase{"m{a:b=\"1\"} 2\n", "line 1: expected '=' after label a"},
        BadCase{"m\n", "line 1: expected a sample value, found \"\""},
        BadCase{"m abc\n", "line 1: expected a sample value, found \"abc\""},
        BadCase{"m inf\n", "line 1: expected a sample value, found \"inf\""},
        BadCase{"m 1 12.5\n", "line 1: expected a timestamp in milliseconds, found \"12.5\""},
        BadCase{"m 1 2 3\n", "line 1: unexpected text after the timestamp: \"3\""},
        BadCase{"# TYPE m gauges\n",
                "line 1: TYPE m: unknown type \"gauges\"; expected counter, "
                "gauge, histogram, summary or untyped"},
        BadCase{"# TYPE m gauge\n# TYPE m counter\n", "line 2: second TYPE line for m"},
        BadCase{"# TYPE \n", "line 1: TYPE: expected a metric name"}));

}  // namespace
}  // namespace carbonroute::model_sources
