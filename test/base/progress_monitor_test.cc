#include "base/progress_monitor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace carbonroute {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

TEST(ProgressMonitor, ALoopIsOverdueOnlyAfterItsPromise) {
  ProgressMonitor monitor;
  const ProgressMonitor::LoopId polls = monitor.Register("poll loop of replay");
  const ProgressMonitor::LoopId probes = monitor.Register("prober");
  EXPECT_THAT(monitor.OverdueAt(absl::InfiniteFuture() - absl::Hours(1)), ::testing::IsEmpty())
      << "a loop that has promised nothing yet is not overdue";
  monitor.Expect(polls, kT0 + absl::Minutes(1));
  monitor.Expect(probes, kT0 + absl::Seconds(30));
  EXPECT_THAT(monitor.OverdueAt(kT0 + absl::Seconds(30)), ::testing::IsEmpty());
  std::vector<ProgressMonitor::Overdue> overdue = monitor.OverdueAt(kT0 + absl::Minutes(3));
  ASSERT_EQ(overdue.size(), 2u);
  EXPECT_EQ(DescribeOverdue(overdue), "poll loop of replay (2m late), prober (2m30s late)");

  monitor.Expect(probes, kT0 + absl::Minutes(4));  // the prober came back and promised again
  overdue = monitor.OverdueAt(kT0 + absl::Minutes(3));
  ASSERT_EQ(overdue.size(), 1u);
  EXPECT_EQ(overdue[0].loop, "poll loop of replay");
  monitor.Finish(polls);
  EXPECT_THAT(monitor.OverdueAt(kT0 + absl::Minutes(3)), ::testing::IsEmpty());
}

}  // namespace
}  // namespace carbonroute
