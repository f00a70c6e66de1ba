#include "base/duration_text.h"

#include <gtest/gtest.h>

namespace carbonroute {
namespace {

TEST(DurationText, ReadsGoDurationsDaysAndWeeks) {
  EXPECT_EQ(ParseDurationText("90s"), absl::Seconds(90));
  EXPECT_EQ(ParseDurationText("1h30m"), absl::Minutes(90));
  EXPECT_EQ(ParseDurationText("250ms"), absl::Milliseconds(250));
  EXPECT_EQ(ParseDurationText("7d"), absl::Hours(168));
  EXPECT_EQ(ParseDurationText("2w"), absl::Hours(336));
  EXPECT_EQ(ParseDurationText("1d12h"), absl::Hours(36));
  EXPECT_EQ(ParseDurationText("1.5d"), absl::Hours(36));
  EXPECT_EQ(ParseDurationText("1w2d3h4m"), absl::Hours(24 * 9 + 3) + absl::Minutes(4));
  EXPECT_EQ(ParseDurationText("0"), absl::ZeroDuration());
  EXPECT_EQ(ParseDurationText("0d"), absl::ZeroDuration());
  EXPECT_EQ(ParseDurationText("-1d"), -absl::Hours(24));
}

TEST(DurationText, RefusesWhatIsNotADuration) {
  for (const char* text : {"", "5", "d", "7days", "3fortnights", "1y", "h1", "1d 2h", " 1d",
                           "1..5d", "-", "+", "inf", "1e3d", "1d-2h"}) {
    EXPECT_EQ(ParseDurationText(text), std::nullopt) << text;
  }
}

}  // namespace
}  // namespace carbonroute
