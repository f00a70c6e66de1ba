#include "exporter/text_exposition.h"

#include <gtest/gtest.h>

#include <limits>

namespace carbonroute::exporter {
namespace {

std::string Value(double value) {
  std::string out;
  AppendSampleValue(out, value);
  return out;
}

TEST(TextExposition, ValuesAreTheShortestTextThatReadsBackExactly) {
  EXPECT_EQ(Value(40), "40");
  EXPECT_EQ(Value(0.005), "0.005");
  EXPECT_EQ(Value(5e-05), "5e-05");
  EXPECT_EQ(Value(0.0001), "0.0001");
  EXPECT_EQ(Value(1e21), "1e+21");
  EXPECT_EQ(Value(1.2345678901234568e17), "123456789012345680");
  EXPECT_EQ(Value(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(Value(1795600800), "1795600800");
  EXPECT_EQ(Value(-2.5), "-2.5");
  EXPECT_EQ(Value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(Value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(Value(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(TextExposition, LabelValuesEscapeBackslashQuoteAndNewlineOnly) {
  std::string out;
  AppendLabelValue(out, "a\\b\"c\nd\te");
  EXPECT_EQ(out, "a\\\\b\\\"c\\nd\te");
}

TEST(TextExposition, AFamilyHeaderIsHelpThenType) {
  std::string out;
  AppendFamilyHeader(out, "m_total", "Things.", "counter");
  EXPECT_EQ(out, "# HELP m_total Things.\n# TYPE m_total counter\n");
}

}  // namespace
}  // namespace carbonroute::exporter
