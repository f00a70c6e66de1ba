#include "collector/service_notifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "test/testing/fake_clock.h"

namespace carbonroute::collector {
namespace {

const absl::Time kNotifyStart = absl::FromUnixSeconds(1'800'000'000);

class ServiceNotifierTest : public ::testing::Test {
 protected:
  ProgressMonitor progress_;
  testing::FakeClock clock_{kNotifyStart};
  std::vector<std::string> sent_;
  ServiceNotifier notifier_{progress_, [] { return "3 locations, 0 failing"; }, clock_,
                            [this](const std::string& message) { sent_.push_back(message); }};
};

TEST_F(ServiceNotifierTest, PingsTheWatchdogOnlyWhileNoLoopIsOverdue) {
  const ProgressMonitor::LoopId loop = progress_.Register("poll loop of replay");
  progress_.Expect(loop, kNotifyStart + absl::Minutes(1));
  EXPECT_EQ(notifier_.Tick(kNotifyStart), "STATUS=3 locations, 0 failing\nWATCHDOG=1");
  EXPECT_EQ(notifier_.Tick(kNotifyStart + absl::Minutes(2)),
            "STATUS=stuck: poll loop of replay (1m late); 3 locations, 0 failing");
  progress_.Expect(loop, kNotifyStart + absl::Minutes(5));  // it came back
  EXPECT_EQ(notifier_.Tick(kNotifyStart + absl::Minutes(2)),
            "STATUS=3 locations, 0 failing\nWATCHDOG=1");
  EXPECT_EQ(sent_.size(), 3u);
}

TEST_F(ServiceNotifierTest, RunTicksUntilStopped) {
  absl::Notification stop;
  clock_.StopAt(kNotifyStart + absl::Seconds(25));
  notifier_.Run(absl::Seconds(10), stop);  // ticks at 0, 10 and 20 s, then the clock says stop
  EXPECT_EQ(sent_.size(), 3u);
}

TEST(ServiceNotifierWatchdog, TickIsHalfOfWhatSystemdAskedFor) {
  ::unsetenv("WATCHDOG_PID");
  ::unsetenv("WATCHDOG_USEC");
  EXPECT_EQ(ServiceNotifier::WatchdogTick(), std::nullopt);
  ::setenv("WATCHDOG_USEC", "30000000", 1);
  EXPECT_EQ(ServiceNotifier::WatchdogTick(), absl::Seconds(15));
  ::setenv("WATCHDOG_PID", "1", 1);  // meant for another process
  EXPECT_EQ(ServiceNotifier::WatchdogTick(), std::nullopt);
  ::unsetenv("WATCHDOG_PID");
  ::unsetenv("WATCHDOG_USEC");
}

}  // namespace
}  // namespace carbonroute::collector
