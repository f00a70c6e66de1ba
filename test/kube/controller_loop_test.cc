#include "kube/controller_loop.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_clock.h"

namespace carbonroute::kube {
namespace {

const absl::Time kLoopStart = absl::FromUnixSeconds(1'800'000'000);

// A controller that records what the loop asked of it.
class RecordingReconciler final : public Reconciler {
 public:
  absl::StatusOr<ListedVersions> List(absl::Time now) override {
    lists.push_back(now);
    if (fail_lists) return absl::UnavailableError("the API server is down");
    return ListedVersions{{"/apis/batch/v1/jobs", "42"}};
  }
  void Reconcile(const ControllerPass& pass) override { passes.push_back(pass); }
  absl::Time NextDue() const override { return due; }

  bool fail_lists = false;
  absl::Time due = absl::InfiniteFuture();
  std::vector<absl::Time> lists;
  std::vector<ControllerPass> passes;
};

struct LoopHarness {
  testing::FakeClock clock{kLoopStart};
  testing::FakeBatchApi api{[this] { return clock.Now(); }};
  KubeClient kube{KubeConnection{.server = "http://fake"}, api};
};

TEST(ControllerLoop, ListsEveryResyncAndAFailedListAgainWithinFiveSeconds) {
  LoopHarness h;
  RecordingReconciler controller;
  ControllerLoop loop({.resync = absl::Minutes(5)}, h.kube, h.clock, controller);
  loop.RunOnce();
  ASSERT_EQ(controller.lists.size(), 1u);
  EXPECT_TRUE(controller.passes.back().listed);
  EXPECT_TRUE(controller.passes.back().leading);  // no Lease: acts alone
  EXPECT_TRUE(loop.healthy());
  EXPECT_EQ(loop.NextWake(), kLoopStart + absl::Minutes(5));

  h.clock.Advance(absl::Minutes(4));
  loop.RunOnce();  // within the resync: a pass, no list
  EXPECT_EQ(controller.lists.size(), 1u);
  EXPECT_FALSE(controller.passes.back().listed);
  EXPECT_EQ(controller.passes.size(), 2u);

  h.clock.Advance(absl::Minutes(1));
  controller.fail_lists = true;
  loop.RunOnce();
  EXPECT_EQ(controller.lists.size(), 2u);
  EXPECT_FALSE(controller.passes.back().listed);
  EXPECT_EQ(loop.NextWake(), h.clock.Now() + kListRetry);

  // Three resyncs without a successful list: unhealthy; one success mends it.
  for (int i = 0; i < 3 * 60; ++i) {
    h.clock.Advance(kListRetry);
    loop.RunOnce();
  }
  EXPECT_FALSE(loop.healthy());
  controller.fail_lists = false;
  h.clock.Advance(kListRetry);
  loop.RunOnce();
  EXPECT_TRUE(controller.passes.back().listed);
  EXPECT_TRUE(loop.healthy());
}

TEST(ControllerLoop, AnApiServerOutageMakesItUnhealthyButNeverStuck) {
  LoopHarness h;
  RecordingReconciler controller;
  controller.fail_lists = true;  // the API server is down from the start
  ControllerLoop loop({.resync = absl::Minutes(5)}, h.kube, h.clock, controller);
  EXPECT_TRUE(loop.turning());             // before the first pass
  for (int i = 0; i < 60 * 60 / 5; ++i) {  // an hour of failed lists, one every kListRetry
    loop.RunOnce();
    h.clock.Advance(kListRetry);
  }
  EXPECT_FALSE(loop.healthy());  // readiness: no list for three resyncs
  EXPECT_TRUE(loop.turning());   // liveness: its passes end
  // A loop that stops ending passes (a pass that never returns) is stuck after
  // three resyncs and kMaxPassGap, not before.
  h.clock.Advance(3 * absl::Minutes(5) + kMaxPassGap - kListRetry);
  EXPECT_TRUE(loop.turning());
  h.clock.Advance(absl::Seconds(1));
  EXPECT_FALSE(loop.turning());
  loop.RunOnce();
  EXPECT_TRUE(loop.turning());
}

TEST(ControllerLoop, WakesAtTheEarliestOfTheListTheControllersDueTimeAndAskedLists) {
  LoopHarness h;
  RecordingReconciler controller;
  ControllerLoop loop({.resync = absl::Minutes(5)}, h.kube, h.clock, controller);
  loop.RunOnce();
  controller.due = kLoopStart + absl::Seconds(30);  // a planned release
  EXPECT_EQ(loop.NextWake(), kLoopStart + absl::Seconds(30));
  loop.ListBy(kLoopStart + absl::Seconds(10));  // a write failed: look again soon
  EXPECT_EQ(loop.NextWake(), kLoopStart + absl::Seconds(10));
  h.clock.Advance(absl::Seconds(10));
  loop.RunOnce();
  EXPECT_EQ(controller.lists.size(), 2u);
}

TEST(ControllerLoop, RunWaitsOnTheClockNotInRealTime) {
  LoopHarness h;
  RecordingReconciler controller;
  ControllerLoop loop({.resync = absl::Minutes(5)}, h.kube, h.clock, controller);
  h.clock.StopAt(kLoopStart + absl::Hours(1));
  absl::Notification stop;
  loop.Run(stop);  // an hour of passes, at once
  EXPECT_EQ(controller.lists.size(), 12u);
  EXPECT_EQ(controller.lists.back(), kLoopStart + absl::Minutes(55));
}

TEST(ControllerLoop, OnlyTheLeaderListsUnlessFollowersListTooAndANewLeaderListsAtOnce) {
  LoopHarness h;
  LeaseElection a({"carbonroute", "carbonroute-test", "replica-a", absl::Seconds(15)}, h.kube);
  LeaseElection b({"carbonroute", "carbonroute-test", "replica-b", absl::Seconds(15)}, h.kube);
  LeaseElection c({"carbonroute", "carbonroute-test", "replica-c", absl::Seconds(15)}, h.kube);
  RecordingReconciler leader, follower, counting;
  ControllerLoop first({.resync = absl::Minutes(5)}, h.kube, h.clock, leader, &a);
  ControllerLoop second({.resync = absl::Minutes(5)}, h.kube, h.clock, follower, &b);
  ControllerLoop third({.resync = absl::Minutes(5), .list_while_following = true}, h.kube, h.clock,
                       counting, &c);
  first.RunOnce();
  second.RunOnce();
  third.RunOnce();
  EXPECT_TRUE(leader.passes.back().leading);
  EXPECT_TRUE(leader.passes.back().became_leader);
  EXPECT_FALSE(follower.passes.back().leading);
  EXPECT_TRUE(follower.lists.empty());   // it does not list while another leads...
  EXPECT_TRUE(second.healthy());         // ...and is not unhealthy for it
  EXPECT_EQ(counting.lists.size(), 1u);  // this one lists while following
  // A follower wakes for the Lease, not in a loop: its next wake is the Lease's next tick.
  EXPECT_EQ(second.NextWake(), kLoopStart + absl::Seconds(5));

  // The leader stops; once its Lease has expired the follower takes over and lists at once.
  for (int step = 0; step < 5; ++step) {
    h.clock.Advance(absl::Seconds(5));
    second.RunOnce();
  }
  EXPECT_TRUE(follower.passes.back().leading);
  const auto took_over = std::find_if(follower.passes.begin(), follower.passes.end(),
                                      [](const ControllerPass& p) { return p.became_leader; });
  ASSERT_NE(took_over, follower.passes.end());
  EXPECT_TRUE(took_over->listed);
  ASSERT_EQ(follower.lists.size(), 1u);
  EXPECT_EQ(follower.lists[0], took_over->now);
}

}  // namespace
}  // namespace carbonroute::kube
