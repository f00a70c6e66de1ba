#include "scheduler-lite/intensity_ranking.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scheduler-lite/ranking_output.h"

namespace carbonroute::scheduler_lite {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

IntensityObservation Obs(std::string location, double value, std::string provider = "replay",
                         std::optional<absl::Time> valid_to = kNow + absl::Minutes(30)) {
  IntensityObservation o;
  o.location = std::move(location);
  o.provider = std::move(provider);
  o.emissions_type = "average";
  o.grams_per_kwh = value;
  o.valid_to = valid_to;
  o.source = "http://127.0.0.1:1/metrics";
  return o;
}

std::vector<std::string> Order(const Ranking& ranking) {
  std::vector<std::string> out;
  for (const RankedLocation& row : ranking.ranked) out.push_back(row.reading.location);
  return out;
}

TEST(RankByIntensity, CleanestFirstWithDeterministicTies) {
  const Ranking ranking =
      RankByIntensity({Obs("PL", 700), Obs("SE", 20), Obs("FR", 50), Obs("NO", 20)}, {.now = kNow});
  EXPECT_THAT(Order(ranking), ::testing::ElementsAre("NO", "SE", "FR", "PL"));
  EXPECT_EQ(ranking.ranked[0].rank, 1);
  EXPECT_EQ(ranking.ranked[3].rank, 4);
  EXPECT_TRUE(ranking.excluded.empty());
}

TEST(RankByIntensity, FiltersLocationsAndReportsMissingOnes) {
  const Ranking ranking = RankByIntensity({Obs("PL", 700), Obs("SE", 20), Obs("FR", 50)},
                                          {.locations = {"FR", "PL", "XX"}, .now = kNow});
  EXPECT_THAT(Order(ranking), ::testing::ElementsAre("FR", "PL"));
  ASSERT_EQ(ranking.excluded.size(), 1u);
  EXPECT_EQ(ranking.excluded[0].location, "XX");
  EXPECT_EQ(ranking.excluded[0].reason, "no current reading");
}

TEST(RankByIntensity, ExpiredReadingIsExcludedNotRanked) {
  const Ranking ranking =
      RankByIntensity({Obs("SE", 1, "replay", kNow - absl::Seconds(1)), Obs("FR", 50)}, {.now = kNow});
  EXPECT_THAT(Order(ranking), ::testing::ElementsAre("FR"));
  ASSERT_EQ(ranking.excluded.size(), 1u);
  EXPECT_EQ(ranking.excluded[0].location, "SE");
  EXPECT_THAT(ranking.excluded[0].reason, ::testing::HasSubstr("expired at"));
}

TEST(RankByIntensity, SameSeriesFromTwoCollectorsCountsOnce) {
  IntensityObservation older = Obs("FR", 60, "replay", kNow + absl::Minutes(1));
  IntensityObservation newer = Obs("FR", 50, "replay", kNow + absl::Minutes(50));
  const Ranking ranking = RankByIntensity({older, newer, Obs("FR", 55, "other")}, {.now = kNow});
  ASSERT_EQ(ranking.ranked.size(), 2u);
  EXPECT_EQ(ranking.ranked[0].reading.grams_per_kwh, 50);
  EXPECT_EQ(ranking.ranked[1].reading.provider, "other");
}

TEST(RankByIntensity, EmissionsTypeFilter) {
  IntensityObservation marginal = Obs("DE", 600);
  marginal.emissions_type = "marginal";
  const Ranking ranking =
      RankByIntensity({Obs("DE", 400), marginal}, {.emissions_type = "marginal", .now = kNow});
  ASSERT_EQ(ranking.ranked.size(), 1u);
  EXPECT_EQ(ranking.ranked[0].reading.grams_per_kwh, 600);
}

TEST(RankingOutput, TableAndJson) {
  const Ranking ranking = RankByIntensity({Obs("FR", 50.5), Obs("PL", 700, "replay", std::nullopt)},
                                          {.locations = {"FR", "PL", "XX"}, .now = kNow});
  const std::string table = RankingTable(ranking);
  EXPECT_THAT(table, ::testing::HasSubstr("   1  FR"));
  EXPECT_THAT(table, ::testing::HasSubstr("50.50"));
  EXPECT_THAT(table, ::testing::HasSubstr("not ranked: XX (no current reading)"));
  const std::string json = RankingJson(ranking);
  EXPECT_THAT(json, ::testing::HasSubstr("\"location\": \"FR\""));
  EXPECT_THAT(json, ::testing::HasSubstr("\"valid_to\": null"));
  EXPECT_THAT(json, ::testing::HasSubstr("\"reason\": \"no current reading\""));
}

}  // namespace
}  // namespace carbonroute::scheduler_lite
