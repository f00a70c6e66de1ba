#include "scheduler-lite/scoring_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "scheduler-lite/scoring.h"

namespace carbonroute::scheduler_lite {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

std::shared_ptr<PlacementModel> Model() {
  auto m = std::make_shared<PlacementModel>();
  m->built_at = kNow;
  for (const auto& [location, grams] : {std::pair<const char*, double>{"SE", 30}, {"PL", 700}}) {
    LocationCarbon& c = m->carbon[location];
    c.grams_per_kwh = grams;
    c.valid_to = kNow + absl::Hours(1);
  }
  m->nodes["edge"] = {"FR", "europe-west9"};
  m->nodes["n-se"] = {"SE", "europe-north1"};
  m->nodes["n-pl"] = {"PL", "europe-central2"};
  m->region_locations["europe-north1"] = "SE";
  m->rtt["edge"]["n-se"] = {absl::Microseconds(25'125), RttMethod::kMeasured, kNow};
  m->rtt["edge"]["far-away"] = {absl::Milliseconds(300), RttMethod::kMeasured, kNow};
  m->rtt["europe-west9"]["europe-central2"] = {absl::Milliseconds(20), RttMethod::kDeclared, kNow};
  return m;
}

TEST(ScoringIndex, GivesIdsToEveryNameTheModelUses) {
  const ScoringIndex index{std::shared_ptr<const PlacementModel>(Model())};
  ASSERT_NE(index.PlaceId("n-se"), ScoringIndex::kNone);
  const ScoringIndex::Place& se = index.place(index.PlaceId("n-se"));
  EXPECT_TRUE(se.is_node);
  EXPECT_EQ(index.location(se.location), "SE");
  EXPECT_EQ(index.region(se.region), "europe-north1");
  // An RTT target that is not a node is still a place (a candidate may be named so).
  EXPECT_NE(index.PlaceId("far-away"), ScoringIndex::kNone);
  EXPECT_FALSE(index.place(index.PlaceId("far-away")).is_node);
  // A region of the region → location map is a place too, with its location.
  const uint32_t north = index.PlaceId("europe-north1");
  ASSERT_NE(north, ScoringIndex::kNone);
  EXPECT_TRUE(index.place(north).is_region);
  EXPECT_EQ(index.location(index.RegionLocation(index.RegionId("europe-north1"))), "SE");
  // "FR" has no carbon reading but is named by a node.
  EXPECT_NE(index.LocationId("FR"), ScoringIndex::kNone);
  EXPECT_EQ(index.PlaceId("nowhere"), ScoringIndex::kNone);
  EXPECT_EQ(index.LocationId("DE"), ScoringIndex::kNone);
}

TEST(ScoringIndex, RowsAreDenseMillisecondsWithNaNForNoEntry) {
  const ScoringIndex index{std::shared_ptr<const PlacementModel>(Model())};
  EXPECT_EQ(index.Row("n-se"), nullptr);  // a node without a row
  const std::vector<double>* row = index.Row("edge");
  ASSERT_NE(row, nullptr);
  EXPECT_DOUBLE_EQ((*row)[index.PlaceId("n-se")], 25.125);
  EXPECT_DOUBLE_EQ((*row)[index.PlaceId("far-away")], 300);
  EXPECT_TRUE(std::isnan((*row)[index.PlaceId("n-pl")]));
  EXPECT_EQ(index.Row("edge"), row);  // built once
}

TEST(ScoringIndex, RowsBuiltConcurrentlyAreBuiltOnce) {
  const ScoringIndex index{std::shared_ptr<const PlacementModel>(Model())};
  const std::vector<double>* seen[4] = {};
  std::vector<std::thread> threads;
  for (auto& s : seen) threads.emplace_back([&index, &s] { s = index.Row("europe-west9"); });
  for (auto& t : threads) t.join();
  for (const auto* s : seen) EXPECT_EQ(s, seen[0]);
  EXPECT_DOUBLE_EQ((*seen[0])[index.PlaceId("europe-central2")], 20);
}

TEST(ScoringIndex, KeepsTheModelAlive) {
  std::shared_ptr<PlacementModel> model = Model();
  const PlacementModel* raw = model.get();
  const ScoringIndex index(std::move(model));
  EXPECT_EQ(&index.model(), raw);
  EXPECT_EQ(index.model().nodes.size(), 3u);
}

// Through the index: a candidate's own location/region (full NodeList mode)
// win over the model's, region-named candidates resolve, and the region
// fallback of the RTT lookup is used.
TEST(ScoringIndex, ScoringResolvesLikeTheHeaderSays) {
  const ScoringIndex index{std::shared_ptr<const PlacementModel>(Model())};
  const std::vector<Candidate> candidates = {
      {"n-se", "PL", ""},                  // labels say PL: the label wins
      {"europe-north1", "", ""},           // a region: its location SE
      {"n-pl", "", ""},                    // no row entry: the static matrix between regions, 20 ms
      {"unlabelled", "", "europe-west9"},  // not a node, but in the origin's region: 5 ms
      {"far-away", "", ""},                // 300 ms from edge
  };
  const auto scored =
      ScoreCandidates(index, candidates, {{{"edge", 100}}, std::nullopt}, {.now = kNow});
  std::map<std::string, ScoredCandidate> by_name;
  for (const ScoredCandidate& s : scored) by_name[s.name] = s;
  EXPECT_EQ(by_name["n-se"].location, "PL");
  EXPECT_EQ(by_name["n-se"].grams_per_kwh, 700);
  EXPECT_EQ(by_name["europe-north1"].location, "SE");
  EXPECT_EQ(by_name["europe-north1"].region, "europe-north1");
  EXPECT_EQ(by_name["n-pl"].latency, absl::Milliseconds(20));
  EXPECT_EQ(by_name["unlabelled"].latency, absl::Milliseconds(5));
  EXPECT_FALSE(by_name["far-away"].feasible);
  ASSERT_FALSE(by_name["far-away"].reasons.empty());
  EXPECT_THAT(by_name["far-away"].reasons[0], HasSubstr("300.00 ms (measured)"));
  // europe-north1 has no RTT from edge (no row entry, no matrix entry, other region): excluded.
  EXPECT_FALSE(by_name["europe-north1"].feasible);
}

TEST(ScoreCompact, ScoresOnlyLeavesOutTheReasonsButNotTheScores) {
  const ScoringIndex index{std::shared_ptr<const PlacementModel>(Model())};
  const std::vector<Candidate> candidates = {
      {"n-se", "", ""}, {"far-away", "", ""}, {"n-pl", "", ""}};
  const Workload workload{{{"edge", 100}}, std::nullopt};
  const CompactScores full = ScoreCompact(index, candidates, workload, {.now = kNow});
  const CompactScores lean =
      ScoreCompact(index, candidates, workload, {.now = kNow}, FailureDetail::kScoresOnly);
  EXPECT_EQ(full.failures.size(), 1u);
  EXPECT_THAT(lean.failures, IsEmpty());
  EXPECT_EQ(lean.extender_scores, full.extender_scores);
  EXPECT_EQ(lean.best, full.best);
  EXPECT_EQ(lean.best_location, "SE");
}

}  // namespace
}  // namespace carbonroute::scheduler_lite
