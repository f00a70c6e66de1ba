#include "placement/placement_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "placement/scoring.h"

namespace carbonroute::placement {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

std::shared_ptr<PlacementFacts> Facts() {
  auto m = std::make_shared<PlacementFacts>();
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

TEST(PlacementModel, GivesIdsToEveryNameTheFactsUse) {
  const PlacementModel index(*Facts());
  ASSERT_NE(index.PlaceId("n-se"), PlacementModel::kNone);
  const PlacementModel::Place& se = index.place(index.PlaceId("n-se"));
  EXPECT_TRUE(se.is_node);
  EXPECT_EQ(index.location(se.location), "SE");
  EXPECT_EQ(index.region(se.region), "europe-north1");
  // An RTT target that is not a node is still a place (a candidate may be named so).
  EXPECT_NE(index.PlaceId("far-away"), PlacementModel::kNone);
  EXPECT_FALSE(index.place(index.PlaceId("far-away")).is_node);
  // A region of the region → location map is a place too, with its location.
  const uint32_t north = index.PlaceId("europe-north1");
  ASSERT_NE(north, PlacementModel::kNone);
  EXPECT_TRUE(index.place(north).is_region);
  EXPECT_EQ(index.location(index.RegionLocation(index.RegionId("europe-north1"))), "SE");
  // "FR" has no carbon reading but is named by a node.
  EXPECT_NE(index.LocationId("FR"), PlacementModel::kNone);
  EXPECT_EQ(index.PlaceId("nowhere"), PlacementModel::kNone);
  EXPECT_EQ(index.LocationId("DE"), PlacementModel::kNone);
}

TEST(PlacementModel, RowsAreDenseMillisecondsWithNaNForNoEntry) {
  const PlacementModel index(*Facts());
  EXPECT_EQ(index.RowId("n-se"), PlacementModel::kNone);  // a node without a row
  const uint32_t edge = index.RowId("edge");
  ASSERT_NE(edge, PlacementModel::kNone);
  const PlacementModel::DenseRow& row = index.Dense(edge);
  EXPECT_DOUBLE_EQ(row.ms[index.PlaceId("n-se")], 25.125);
  EXPECT_DOUBLE_EQ(row.ms[index.PlaceId("far-away")], 300);
  EXPECT_EQ(row.method[index.PlaceId("far-away")], RttMethod::kMeasured);
  EXPECT_TRUE(std::isnan(row.ms[index.PlaceId("n-pl")]));
  EXPECT_EQ(&index.Dense(edge), &row);  // built once
  ASSERT_NE(index.FindEntry(edge, index.PlaceId("n-se")), nullptr);
  EXPECT_EQ(index.FindEntry(edge, index.PlaceId("n-pl")), nullptr);
}

TEST(PlacementModel, RowsBuiltConcurrentlyAreBuiltOnce) {
  const PlacementModel index(*Facts());
  const PlacementModel::DenseRow* seen[4] = {};
  std::vector<std::thread> threads;
  const uint32_t row = index.RowId("europe-west9");
  for (auto& s : seen) threads.emplace_back([&index, &s, row] { s = &index.Dense(row); });
  for (auto& t : threads) t.join();
  for (const auto* s : seen) EXPECT_EQ(s, seen[0]);
  EXPECT_DOUBLE_EQ(seen[0]->ms[index.PlaceId("europe-central2")], 20);
  EXPECT_EQ(seen[0]->method[index.PlaceId("europe-central2")], RttMethod::kDeclared);
}

TEST(PlacementModel, OwnsItsNamesAndCarbonIsUpdatedInPlace) {
  std::unique_ptr<PlacementModel> model;
  {
    const std::shared_ptr<PlacementFacts> facts = Facts();
    model = std::make_unique<PlacementModel>(*facts);
  }  // the facts are gone; the model holds its own copies
  EXPECT_EQ(model->node_count(), 3u);
  EXPECT_EQ(model->place_name(model->PlaceId("n-se")), "n-se");
  const uint32_t se = model->LocationId("SE");
  EXPECT_EQ(model->MutableCarbon(model->LocationId("FR")), nullptr);  // named, but no reading
  model->MutableCarbon(se)->grams_per_kwh = 900;
  const auto scored =
      ScoreCandidates(*model, {{"n-se", "", ""}, {"n-pl", "", ""}}, {}, {.now = kNow});
  EXPECT_EQ(scored[0].name, "n-pl");  // SE is now the dirtier of the two
  EXPECT_EQ(scored[1].grams_per_kwh, 900);
}

// Through the model: a candidate's own location/region (full NodeList mode)
// win over the model's, region-named candidates resolve, and the region
// fallback of the RTT lookup is used.
TEST(PlacementModel, ScoringResolvesLikeTheHeaderSays) {
  const PlacementModel index(*Facts());
  const std::vector<Candidate> candidates = {
      {"n-se", "PL", ""},                  // labels say PL: the label wins
      {"europe-north1", "", ""},           // a region: its location SE
      {"n-pl", "", ""},                    // no row entry: the static matrix between regions, 20 ms
      {"unlabelled", "", "europe-west9"},  // not a node, but in the origin's region: 5 ms
      {"far-away", "", ""},                // 300 ms from edge
  };
  const auto scored = ScoreCandidates(
      index, candidates, {{{"edge", absl::Milliseconds(100)}}, std::nullopt}, {.now = kNow});
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
  const PlacementModel index(*Facts());
  const std::vector<Candidate> candidates = {
      {"n-se", "", ""}, {"far-away", "", ""}, {"n-pl", "", ""}};
  const Workload workload{{{"edge", absl::Milliseconds(100)}}, std::nullopt};
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
}  // namespace carbonroute::placement
