#include "simulator/temporal_simulation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "base/data_files.h"
#include "simulator/zone_groups.h"
#include "test/testing/build_paths.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::simulator {
namespace {

using ::testing::DoubleNear;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

// Three zones, four days: A cycles 1,2,3,4 by hour; B is flat 10; C is 100 then 0.
IntensityTrace ThreeZones() {
  std::string csv = "datetime,A,B,C\n";
  for (int h = 0; h < 96; ++h) {
    absl::StrAppend(&csv, "2022-01-", 1 + h / 24 < 10 ? "0" : "", 1 + h / 24, "T",
                    h % 24 < 10 ? "0" : "", h % 24, ":00:00Z,", 1 + h % 4, ",10,", h < 48 ? 100 : 0,
                    "\n");
  }
  return *IntensityTrace::Parse(csv, "three.csv");
}

const TemporalRow& Find(const std::vector<TemporalRow>& rows, TemporalPolicy policy,
                        const std::string& group, int length, int slack, bool interruptible) {
  for (const TemporalRow& row : rows) {
    if (row.policy == policy && row.group == group && row.job_length_hours == length &&
        row.slack_hours == slack && row.interruptible == interruptible) {
      return row;
    }
  }
  ADD_FAILURE() << "no row";
  static const TemporalRow kNone;
  return kNone;
}

TEST(TemporalSimulation, HandComputedGroupsAndShares) {
  const IntensityTrace trace = ThreeZones();
  const std::map<std::string, std::set<std::string>> groups = {
      {"Europe", {"A", "B"}}, {"Asia", {"C"}}, {"Americas", {}}, {"Oceania", {}}};
  TemporalOptions options;
  options.job_lengths_hours = {1};
  options.slacks_hours = {0, 3};
  options.interruptible = {true};
  options.groups = {"Global", "Europe", "Americas"};
  absl::StatusOr<std::vector<TemporalRow>> rows = SimulateTemporal(trace, groups, options);
  ASSERT_THAT(rows, IsOk());
  // 96 arrivals of a 1-hour job per zone. Now: A 2.5, B 10, C 50 → Global 62.5 / 3.
  EXPECT_THAT(Find(*rows, TemporalPolicy::kNow, "Global", 1, 3, true).mean_grams_per_kwh,
              DoubleNear(62.5 / 3, 1e-9));
  // Slack 3 h: A waits for its 1 whenever the window [t, t + 4) holds one (arrivals
  // 0–92), and the last 3 arrivals see 2, 3, 4's windows {2,3,4}, {3,4}, {4} → 2, 3, 4.
  // C: 100 until its window reaches hour 48 (arrivals 45–47 get 0), 0 after.
  const double a = (93 * 1 + 2 + 3 + 4) / 96.0, c = 45 * 100 / 96.0;
  EXPECT_THAT(Find(*rows, TemporalPolicy::kOracle, "Europe", 1, 3, true).mean_grams_per_kwh,
              DoubleNear((a + 10) / 2, 1e-9));
  const TemporalRow& global = Find(*rows, TemporalPolicy::kOracle, "Global", 1, 3, true);
  EXPECT_THAT(global.mean_grams_per_kwh, DoubleNear((a + 10 + c) / 3, 1e-9));
  EXPECT_THAT(global.reduction_grams_per_kwh, DoubleNear(62.5 / 3 - (a + 10 + c) / 3, 1e-9));
  EXPECT_EQ(global.oracle_saving_share, 1.0);
  EXPECT_EQ(Find(*rows, TemporalPolicy::kNow, "Global", 1, 3, true).oracle_saving_share, 0.0);
  // Slack 0: nothing to gain, so no share; a group without zones has no rows.
  EXPECT_FALSE(Find(*rows, TemporalPolicy::kOracle, "Global", 1, 0, true).oracle_saving_share);
  for (const TemporalRow& row : *rows) EXPECT_NE(row.group, "Americas");
}

TEST(TemporalSimulation, TheResultDoesNotDependOnThreads) {
  const IntensityTrace trace = ThreeZones();
  TemporalOptions options;
  options.job_lengths_hours = {1, 6, 24};
  options.slacks_hours = {0, 12, 8760};
  options.groups = {"Global"};
  options.threads = 1;
  const std::vector<TemporalRow> one = *SimulateTemporal(trace, {}, options);
  options.threads = 3;
  const std::vector<TemporalRow> three = *SimulateTemporal(trace, {}, options);
  ASSERT_EQ(one.size(), three.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].mean_grams_per_kwh, three[i].mean_grams_per_kwh);
  }
}

TEST(TemporalSimulation, MistakesNameTheValue) {
  const IntensityTrace trace = ThreeZones();
  TemporalOptions options;
  options.job_lengths_hours = {1};
  options.groups = {"Atlantis"};
  EXPECT_THAT(
      SimulateTemporal(trace, {}, options),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown group \"Atlantis\"")));
  options.groups = {"Global"};
  options.job_lengths_hours = {97};
  EXPECT_THAT(SimulateTemporal(trace, {}, options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("job length 97 h is outside 1 h to 96 h")));
  options.job_lengths_hours = {1};
  options.slacks_hours = {-1};
  EXPECT_THAT(SimulateTemporal(trace, {}, options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("slack -1 h is negative")));
}

TEST(ZoneGroups, TheShippedTableGroupsZonesByContinent) {
  absl::StatusOr<std::string> text =
      ReadFileToString(std::string(CARBONROUTE_SOURCE_DIR) + "/data/zones.csv", "zones");
  ASSERT_THAT(text, IsOk());
  absl::StatusOr<std::map<std::string, std::set<std::string>>> groups =
      ParseZoneGroups(*text, "zones.csv");
  ASSERT_THAT(groups, IsOk());
  EXPECT_TRUE(groups->at("Europe").contains("SE-SE1"));
  EXPECT_TRUE(groups->at("Americas").contains("CA-QC"));
  EXPECT_FALSE(groups->at("Europe").contains("CA-QC"));
  EXPECT_EQ(groups->size(), 4u);
  EXPECT_THAT(ParseZoneGroups("zone_code,Americas,Europe,Asia\nX,1,,\n", "z.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("z.csv:1: the header has no column \"Oceania\"")));
  EXPECT_THAT(ParseZoneGroups("zone_code,Americas,Europe,Asia,Oceania\nX,1\n", "z.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("z.csv:2: 2 cells")));
}

}  // namespace
}  // namespace carbonroute::simulator
