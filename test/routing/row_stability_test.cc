#include "routing/row_stability.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace carbonroute::routing {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

// Origin a/* may send to itself (100 g) and to b/* (95 g), not to c/* (over its limit); the plan
// moves all of it to b/*.
RoutePlan Plan() {
  RoutePlan plan;
  plan.rows.push_back(
      {.origin = "a/*",
       .demand = 1,
       .flows = {{.destination = "b/*", .share = 1, .grams_per_kwh = 95, .allowed = true},
                 {.destination = "a/*", .grams_per_kwh = 100, .allowed = true},
                 {.destination = "c/*", .grams_per_kwh = 10, .allowed = false}}});
  plan.setting.distribute = {{"a/*", {{"b/*", 100}}}};
  return plan;
}

const std::vector<DistributeRow> kHeld = {{"a/*", {{"a/*", 100}}}};

TEST(StableRows, AGainWithinTheToleranceKeepsTheRow) {
  std::map<std::string, absl::Time> changed;
  EXPECT_EQ(StableRows(kHeld, Plan(), /*tolerance=*/10, absl::ZeroDuration(), kNow, changed)[0].to,
            kHeld[0].to);  // 100 → 95 gains 5 ≤ 10
  EXPECT_TRUE(changed.empty());
  const std::vector<DistributeRow> moved =
      StableRows(kHeld, Plan(), /*tolerance=*/2, absl::ZeroDuration(), kNow, changed);
  EXPECT_EQ(moved[0].to, (std::vector<std::pair<std::string, int64_t>>{{"b/*", 100}}));
  EXPECT_EQ(changed.at("a/*"), kNow);
}

TEST(StableRows, ARowChangedWithinMinStayStays) {
  std::map<std::string, absl::Time> changed = {{"a/*", kNow - absl::Minutes(5)}};
  EXPECT_EQ(StableRows(kHeld, Plan(), 0, absl::Minutes(10), kNow, changed)[0].to, kHeld[0].to);
  EXPECT_EQ(StableRows(kHeld, Plan(), 0, absl::Minutes(5), kNow, changed)[0].from, "a/*");
  EXPECT_EQ(changed.at("a/*"), kNow);  // 5 minutes is not less than 5: it moved
}

// A held row that sends where the origin may no longer send is replaced at once, minStay or not.
TEST(StableRows, AnInvalidRowIsAlwaysReplaced) {
  std::map<std::string, absl::Time> changed = {{"a/*", kNow}};
  const std::vector<DistributeRow> held = {{"a/*", {{"c/*", 100}}}};
  EXPECT_EQ(StableRows(held, Plan(), 1000, absl::Hours(1), kNow, changed)[0].to,
            (std::vector<std::pair<std::string, int64_t>>{{"b/*", 100}}));
  // An origin the plan no longer has is left out.
  RoutePlan none = Plan();
  none.setting.distribute.clear();
  EXPECT_TRUE(StableRows(kHeld, none, 0, absl::ZeroDuration(), kNow, changed).empty());
}

}  // namespace
}  // namespace carbonroute::routing
