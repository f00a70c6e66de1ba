#include "prober/probe_schedule.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

namespace carbonroute::prober {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

TEST(ProbeSchedule, FirstProbesAreSpreadOverOneInterval) {
  ProbeSchedule schedule(absl::Seconds(1), 0.1, /*seed=*/42);
  for (uint32_t i = 0; i < 1000; ++i) schedule.Add(i, kT0);
  // Every target's first probe falls in the first second, roughly a tenth in each
  // tenth of it: no burst. (A target probed early may fire a second time before
  // 1 s: its next probe is 0.9–1.1 s later.)
  std::map<ProbeSchedule::TargetId, int> first_slice;
  for (int slice = 1; slice <= 10; ++slice) {
    for (ProbeSchedule::TargetId target : schedule.Due(kT0 + absl::Milliseconds(100 * slice))) {
      first_slice.emplace(target, slice);
    }
  }
  ASSERT_EQ(first_slice.size(), 1000u);
  std::map<int, int> per_slice;
  for (const auto& [target, slice] : first_slice) ++per_slice[slice];
  for (int slice = 1; slice <= 10; ++slice) {
    EXPECT_GT(per_slice[slice], 60) << "slice " << slice;
    EXPECT_LT(per_slice[slice], 140) << "slice " << slice;
  }
}

TEST(ProbeSchedule, EachTargetProbesOncePerIntervalWithBoundedJitter) {
  ProbeSchedule schedule(absl::Seconds(1), 0.1, /*seed=*/7);
  schedule.Add(7, kT0);
  std::vector<absl::Time> fired;
  for (absl::Time now = kT0; now < kT0 + absl::Seconds(60); now += absl::Milliseconds(1)) {
    for (ProbeSchedule::TargetId target : schedule.Due(now)) {
      EXPECT_EQ(target, 7u);
      fired.push_back(now);
    }
  }
  ASSERT_GE(fired.size(), 55u);  // 60 s at 1 s ± 10 %
  ASSERT_LE(fired.size(), 67u);
  for (std::size_t i = 1; i < fired.size(); ++i) {
    const absl::Duration gap = fired[i] - fired[i - 1];
    EXPECT_GE(gap, absl::Milliseconds(899));
    EXPECT_LE(gap, absl::Milliseconds(1101));
  }
}

TEST(ProbeSchedule, NextDueAndRemove) {
  ProbeSchedule schedule(absl::Seconds(10), 0, /*seed=*/1);
  EXPECT_EQ(schedule.NextDue(), absl::InfiniteFuture());
  schedule.Add(1, kT0);
  schedule.Add(2, kT0);
  const absl::Time first = schedule.NextDue();
  EXPECT_GE(first, kT0);
  EXPECT_LT(first, kT0 + absl::Seconds(10));
  schedule.Remove(1);
  schedule.Remove(2);
  EXPECT_EQ(schedule.size(), 0u);
  EXPECT_TRUE(schedule.Due(kT0 + absl::Seconds(100)).empty());  // removed targets never fire
  EXPECT_EQ(schedule.NextDue(), absl::InfiniteFuture());
  schedule.Add(1, kT0 + absl::Seconds(100));  // re-added: one entry, not two
  EXPECT_EQ(schedule.Due(kT0 + absl::Seconds(111)).size(), 1u);
}

TEST(ProbeSchedule, SameSeedSameScheduleAnotherSeedAnother) {
  ProbeSchedule a(absl::Seconds(1), 0.2, 99), b(absl::Seconds(1), 0.2, 99);
  ProbeSchedule other(absl::Seconds(1), 0.2, 100);
  for (uint32_t i = 0; i < 50; ++i) {
    a.Add(i, kT0);
    b.Add(i, kT0);
    other.Add(i, kT0);
  }
  std::size_t fired = 0;
  int slices_that_differ = 0;
  for (int ms = 0; ms < 5000; ms += 10) {
    const std::vector<ProbeSchedule::TargetId> due = a.Due(kT0 + absl::Milliseconds(ms));
    EXPECT_EQ(due, b.Due(kT0 + absl::Milliseconds(ms)));
    slices_that_differ += due != other.Due(kT0 + absl::Milliseconds(ms));
    fired += due.size();
  }
  // 50 targets over 5 s at 1 s ± 20 %, the first within the first second: each
  // fires 4 to 7 times (the schedule does fire).
  EXPECT_GE(fired, 200u);
  EXPECT_LE(fired, 350u);
  // Another seed spreads them otherwise: most 10 ms slices differ.
  EXPECT_GT(slices_that_differ, 50);
}

}  // namespace
}  // namespace carbonroute::prober
