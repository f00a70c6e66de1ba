#include "cli/progress_bar.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace carbonroute::cli {
namespace {

TEST(ProgressBar, LineShowsDoneTotalPercentAndTheTimeLeft) {
  // A quarter done in 30 s: 90 s left.
  EXPECT_EQ(ProgressBar::Line(250, 1000, absl::Seconds(30), 8),
            "[##      ] 250/1000  25%  ETA 1:30");
  EXPECT_EQ(ProgressBar::Line(0, 1000, absl::Seconds(3), 4), "[    ] 0/1000   0%  ETA --:--");
  EXPECT_EQ(ProgressBar::Line(1000, 1000, absl::Seconds(70), 4), "[####] 1000/1000 100%  ETA 0:00");
  EXPECT_EQ(ProgressBar::Line(0, 0, absl::ZeroDuration(), 2), "[##] 0/0 100%  ETA --:--");
}

TEST(ProgressBar, QuietWhenNotEnabled) {
  std::ostringstream out;
  {
    ProgressBar bar(out, 10, /*enabled=*/false);
    bar.counter()->store(10);
  }
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressBar, EnabledEndsWithTheFinalLineAndANewline) {
  std::ostringstream out;
  {
    ProgressBar bar(out, 4, /*enabled=*/true);
    bar.counter()->store(4);
  }  // the destructor draws the last state
  EXPECT_THAT(out.str(), ::testing::HasSubstr("4/4 100%"));
  EXPECT_THAT(out.str(), ::testing::EndsWith("\n"));
}

}  // namespace
}  // namespace carbonroute::cli
