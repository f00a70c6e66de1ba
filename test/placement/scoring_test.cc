#include "placement/scoring.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace carbonroute::placement {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const absl::Time kScoringNow = absl::FromUnixSeconds(1'800'000'000);

PlacementFacts ScoringModel() {
  PlacementFacts m;
  m.built_at = kScoringNow;
  auto carbon = [](double g, std::map<std::string, double> forecast = {}) {
    LocationCarbon c;
    c.provider = "replay";
    c.emissions_type = EmissionsType::kAverage;
    c.grams_per_kwh = g;
    c.valid_to = kScoringNow + absl::Minutes(30);
    c.forecast_mean = std::move(forecast);
    return c;
  };
  m.carbon["SE"] = carbon(30, {{"4h", 90}});
  m.carbon["FR"] = carbon(60, {{"4h", 40}});
  m.carbon["PL"] = carbon(700);
  m.nodes["edge"] = {"FR", "europe-west9"};
  m.nodes["n-se"] = {"SE", "europe-north1"};
  m.nodes["n-fr"] = {"FR", "europe-west9"};
  m.nodes["n-pl"] = {"PL", "europe-central2"};
  m.rtt["edge"]["n-se"] = {absl::Milliseconds(25), RttMethod::kMeasured, kScoringNow};
  m.rtt["edge"]["n-pl"] = {absl::Milliseconds(30), RttMethod::kMeasured, kScoringNow};
  m.rtt["europe-west9"]["europe-north1"] = {absl::Milliseconds(40), RttMethod::kDeclared,
                                            kScoringNow};
  return m;
}

std::vector<Candidate> Nodes() { return {{"n-pl", "", ""}, {"n-fr", "", ""}, {"n-se", "", ""}}; }

std::vector<std::string> Feasible(const std::vector<ScoredCandidate>& scored) {
  std::vector<std::string> names;
  for (const ScoredCandidate& s : scored) {
    if (s.feasible) names.push_back(s.name);
  }
  return names;
}

const ScoredCandidate& Find(const std::vector<ScoredCandidate>& scored, const std::string& name) {
  for (const ScoredCandidate& s : scored) {
    if (s.name == name) return s;
  }
  static const ScoredCandidate* const kNone = new ScoredCandidate();
  return *kNone;
}

TEST(ScoreCandidates, CleanestFirstAndScoreRanges) {
  const auto scored =
      ScoreCandidates(PlacementModel(ScoringModel()), Nodes(), {}, {.now = kScoringNow});
  EXPECT_THAT(Feasible(scored), ElementsAre("n-se", "n-fr", "n-pl"));
  EXPECT_EQ(ExtenderScore(scored[0]), 10);
  EXPECT_EQ(FrameworkScore(scored[0]), 100);
  EXPECT_EQ(ExtenderScore(scored[2]), 0);  // the dirtiest
  // (60 − 30) / (700 − 30) = 0.0448 → score 0.955 → 10/10 and 96/100.
  EXPECT_EQ(ExtenderScore(scored[1]), 10);
  EXPECT_EQ(FrameworkScore(scored[1]), 96);
  EXPECT_EQ(scored[1].location, "FR");  // resolved from carbonroute_node_info
  EXPECT_EQ(scored[1].carbon_basis, "current");
}

TEST(ScoreCandidates, LatencyLimitInsideOnAndOver) {
  Workload inside{{{"edge", absl::Milliseconds(30)}}, std::nullopt};
  auto scored =
      ScoreCandidates(PlacementModel(ScoringModel()), Nodes(), inside, {.now = kScoringNow});
  // n-se 25 ms (inside), n-pl 30 ms (on the limit: allowed), n-fr in edge's region: 5 ms
  // convention. τ = 0: the band is SE (30 g) alone, score 1; outside it carbon alone
  // orders: FR ĉ = (60 − 30) / (700 − 30) = 0.0448, score (1 − 1/6)·(1 − 0.0448) = 0.796;
  // PL ĉ = 1, score 0. The 20 ms SE costs more than FR's does not matter: FR is dirtier.
  EXPECT_THAT(Feasible(scored), ElementsAre("n-se", "n-fr", "n-pl"));
  EXPECT_NEAR(Find(scored, "n-se").score, 1, 1e-9);
  EXPECT_NEAR(Find(scored, "n-fr").score, (5.0 / 6) * (1 - 30.0 / 670), 1e-9);
  EXPECT_EQ(Find(scored, "n-fr").latency, absl::Milliseconds(5));

  Workload tight{{{"edge", absl::Milliseconds(29.9)}}, std::nullopt};
  scored = ScoreCandidates(PlacementModel(ScoringModel()), Nodes(), tight, {.now = kScoringNow});
  EXPECT_THAT(Feasible(scored),
              ElementsAre("n-se", "n-fr"));  // now SE is the cleanest by the full range
  EXPECT_FALSE(Find(scored, "n-pl").feasible);
  EXPECT_THAT(Find(scored, "n-pl").reasons,
              ElementsAre("RTT from edge is 30.00 ms (measured), over the 29.9 ms limit"));
}

// A carbon tolerance τ: inside τ of the cleanest, the nearer wins.
TEST(ScoreCandidates, WithinTheCarbonToleranceTheNearerWins) {
  const Workload inside{{{"edge", absl::Milliseconds(30)}}, std::nullopt};
  // τ = 30: the band is SE (30 g, 25 ms) and FR (60 g, 5 ms); l̂ over the band:
  // FR 0 → 1, SE 1 → 1 − 1/6. PL (700 g): ĉ = (700 − 60) / (700 − 60) = 1 → 0.
  ScoringOptions tolerant{.carbon_tolerance = 30, .now = kScoringNow};
  auto scored = ScoreCandidates(PlacementModel(ScoringModel()), Nodes(), inside, tolerant);
  EXPECT_THAT(Feasible(scored), ElementsAre("n-fr", "n-se", "n-pl"));
  EXPECT_NEAR(Find(scored, "n-fr").score, 1, 1e-9);
  EXPECT_NEAR(Find(scored, "n-se").score, 1 - 1.0 / 6, 1e-9);
  EXPECT_NEAR(Find(scored, "n-pl").score, 0, 1e-9);
  EXPECT_EQ(ExtenderScore(Find(scored, "n-se")), 8);

  // Just under the gap: FR is outside the band again, SE alone in it.
  tolerant.carbon_tolerance = 29.9;
  scored = ScoreCandidates(PlacementModel(ScoringModel()), Nodes(), inside, tolerant);
  EXPECT_THAT(Feasible(scored), ElementsAre("n-se", "n-fr", "n-pl"));

  // w_l = 0: the band ties at 1, and the order still puts the nearer first.
  ScoringOptions no_latency{.latency_weight = 0, .carbon_tolerance = 30, .now = kScoringNow};
  scored = ScoreCandidates(PlacementModel(ScoringModel()), Nodes(), inside, no_latency);
  EXPECT_THAT(Feasible(scored), ElementsAre("n-fr", "n-se", "n-pl"));
  EXPECT_EQ(Find(scored, "n-se").score, 1);
  const CompactScores compact =
      ScoreCompact(PlacementModel(ScoringModel()), Nodes(), inside, no_latency);
  ASSERT_TRUE(compact.best.has_value());
  EXPECT_EQ(Nodes()[*compact.best].name, "n-fr");
}

// A capacity price is added to the location's carbon value before anything else.
TEST(ScoreCandidates, ACapacityPriceMakesALocationDirtier) {
  const PlacementModel model(ScoringModel());
  std::vector<double> price(model.location_count(), 0.0);
  price[model.LocationId("SE")] = 45;  // SE: 30 + 45 = 75 > FR's 60
  const ScoringOptions priced{.capacity_price = &price, .now = kScoringNow};
  const auto scored = ScoreCandidates(model, Nodes(), {}, priced);
  EXPECT_THAT(Feasible(scored), ElementsAre("n-fr", "n-se", "n-pl"));
  EXPECT_EQ(Find(scored, "n-se").grams_per_kwh, 30);  // the reading itself is reported
}

TEST(ScoreCandidates, MissingRttAndUnknownOriginFailClosed) {
  PlacementFacts model = ScoringModel();
  model.rtt["edge"].erase("n-pl");  // and no static entry between the regions
  auto scored =
      ScoreCandidates(PlacementModel(model), Nodes(),
                      {{{"edge", absl::Milliseconds(100)}}, std::nullopt}, {.now = kScoringNow});
  EXPECT_FALSE(Find(scored, "n-pl").feasible);
  EXPECT_THAT(Find(scored, "n-pl").reasons[0],
              HasSubstr("no RTT from edge to n-pl: the 100 ms limit cannot be verified"));

  scored =
      ScoreCandidates(PlacementModel(model), Nodes(),
                      {{{"nowhere", absl::Milliseconds(100)}}, std::nullopt}, {.now = kScoringNow});
  EXPECT_TRUE(Feasible(scored).empty());
  EXPECT_THAT(scored[0].reasons, ElementsAre("unknown origin \"nowhere\" in the latency limit"));
}

TEST(ScoreCandidates, StaticMatrixBetweenRegionsIsUsed) {
  PlacementFacts model = ScoringModel();
  model.rtt["edge"].erase("n-se");
  auto scored =
      ScoreCandidates(PlacementModel(model), Nodes(),
                      {{{"edge", absl::Milliseconds(45)}}, std::nullopt}, {.now = kScoringNow});
  EXPECT_EQ(Find(scored, "n-se").latency, absl::Milliseconds(40));
  EXPECT_TRUE(Find(scored, "n-se").feasible);
}

// A Karmada cluster given as {name: member-tokyo, location: asia-northeast1}
// names a cloud region where a grid location goes (as rank, window and the SDK
// API take them): it is that region for RTT as well as for carbon, not a node
// named member-tokyo with no RTT at all.
TEST(ScoreCandidates, ALocationWrittenAsARegionIsThatRegionForRttToo) {
  PlacementFacts m;
  m.built_at = kScoringNow;
  for (const auto& [location, grams] : {std::pair{"NL", 300.0}, {"JP-TK", 100.0}}) {
    LocationCarbon& c = m.carbon[location];
    c.provider = "replay";
    c.emissions_type = EmissionsType::kAverage;
    c.grams_per_kwh = grams;
    c.valid_to = kScoringNow + absl::Minutes(30);
  }
  m.region_locations["europe-west1"] = "BE";
  m.region_locations["europe-west4"] = "NL";
  m.region_locations["asia-northeast1"] = "JP-TK";
  m.rtt["europe-west1"]["europe-west4"] = {absl::Milliseconds(7), RttMethod::kDeclared,
                                           kScoringNow};
  m.rtt["europe-west1"]["asia-northeast1"] = {absl::Milliseconds(223), RttMethod::kDeclared,
                                              kScoringNow};
  const auto scored = ScoreCandidates(
      PlacementModel(m),
      {{"member-amsterdam", "europe-west4", ""}, {"member-tokyo", "asia-northeast1", ""}},
      {{{"europe-west1", absl::Milliseconds(50)}}, std::nullopt}, {.now = kScoringNow});
  EXPECT_THAT(Feasible(scored), ElementsAre("member-amsterdam"));
  EXPECT_EQ(Find(scored, "member-amsterdam").latency, absl::Milliseconds(7));
  EXPECT_EQ(Find(scored, "member-amsterdam").location, "NL");
  EXPECT_EQ(Find(scored, "member-tokyo").latency, absl::Milliseconds(223));
  EXPECT_EQ(Find(scored, "member-tokyo").location, "JP-TK");
  ASSERT_FALSE(Find(scored, "member-tokyo").reasons.empty());
  EXPECT_THAT(Find(scored, "member-tokyo").reasons[0], Not(HasSubstr("no RTT")));
}

TEST(ScoreCandidates, RuntimeUsesTheForecastMean) {
  // Over 2 h (the 4h window), FR's forecast (40) beats SE's (90).
  auto scored = ScoreCandidates(PlacementModel(ScoringModel()), Nodes(), {{}, absl::Hours(2)},
                                {.now = kScoringNow});
  EXPECT_THAT(Feasible(scored), ElementsAre("n-fr", "n-se", "n-pl"));
  EXPECT_EQ(Find(scored, "n-fr").carbon_basis, "forecast 4h");
  EXPECT_EQ(Find(scored, "n-pl").carbon_basis, "current (no 4h forecast)");
}

TEST(ScoreCandidates, StaleOrMissingCarbonIsScoredAsDirtiestNeverZero) {
  PlacementFacts model = ScoringModel();
  model.carbon["SE"].valid_to = kScoringNow - absl::Hours(1);  // beyond the 30 min allowance
  model.carbon.erase("PL");
  auto scored = ScoreCandidates(PlacementModel(model), Nodes(), {}, {.now = kScoringNow});
  EXPECT_THAT(Feasible(scored),
              ElementsAre("n-fr", "n-pl", "n-se"));  // both at ĉ = 1: ties by name
  EXPECT_EQ(Find(scored, "n-se").grams_per_kwh, std::nullopt);
  EXPECT_THAT(Find(scored, "n-se").reasons[0], HasSubstr("carbon data for SE is stale"));
  EXPECT_THAT(Find(scored, "n-pl").reasons[0], HasSubstr("no carbon data for PL"));
  EXPECT_EQ(ExtenderScore(Find(scored, "n-se")), 0);
}

TEST(ScoreCandidates, AllEqualInputsDoNotDivideByZeroAndTiesAreByName) {
  PlacementFacts model = ScoringModel();
  for (auto& [location, carbon] : model.carbon) carbon.grams_per_kwh = 100;
  auto scored = ScoreCandidates(PlacementModel(model), Nodes(), {}, {.now = kScoringNow});
  EXPECT_THAT(Feasible(scored), ElementsAre("n-fr", "n-pl", "n-se"));
  for (const ScoredCandidate& s : scored) EXPECT_EQ(ExtenderScore(s), 10);
  EXPECT_TRUE(ScoreCandidates(PlacementModel(model), {}, {}, {.now = kScoringNow}).empty());
}

TEST(ScoreCandidates, LatencyWeightBreaksNearTies) {
  PlacementFacts model = ScoringModel();
  model.carbon["PL"].grams_per_kwh = 30;  // as clean as SE, but 30 ms away instead of 25
  auto scored =
      ScoreCandidates(PlacementModel(model), {{"n-pl", "", ""}, {"n-se", "", ""}},
                      {{{"edge", absl::Milliseconds(50)}}, std::nullopt}, {.now = kScoringNow});
  EXPECT_THAT(Feasible(scored), ElementsAre("n-se", "n-pl"));
  EXPECT_LT(scored[1].score, scored[0].score);
}

TEST(ScoreCandidates, UnknownCandidateIsFeasibleButDirtiest) {
  auto scored = ScoreCandidates(PlacementModel(ScoringModel()),
                                {{"n-se", "", ""}, {"mystery", "", ""}}, {}, {.now = kScoringNow});
  EXPECT_THAT(Feasible(scored), ElementsAre("n-se", "mystery"));
  EXPECT_THAT(Find(scored, "mystery").reasons[0], HasSubstr("no grid location known"));
}

TEST(ScoreCompact, AgreesWithScoreCandidates) {
  PlacementFacts model = ScoringModel();
  model.carbon.erase("PL");
  const std::vector<Candidate> candidates = {
      {"n-pl", "", ""}, {"n-fr", "", ""}, {"n-se", "", ""}, {"x", "", ""}};
  for (const Workload& workload :
       {Workload{}, Workload{{{"edge", absl::Milliseconds(26)}}, absl::Hours(2)},
        Workload{{{"nowhere", absl::Milliseconds(5)}}, std::nullopt}}) {
    const CompactScores compact =
        ScoreCompact(PlacementModel(model), candidates, workload, {.now = kScoringNow});
    const auto sorted =
        ScoreCandidates(PlacementModel(model), candidates, workload, {.now = kScoringNow});
    std::vector<ScoredCandidate> full(sorted.size());
    for (const ScoredCandidate& s : sorted) full[s.input_index] = s;  // back to input order
    ASSERT_EQ(compact.extender_scores.size(), full.size());
    std::size_t failures = 0;
    for (std::size_t i = 0; i < full.size(); ++i) {
      EXPECT_EQ(compact.extender_scores[i], ExtenderScore(full[i])) << full[i].name;
      failures += !full[i].feasible;
    }
    ASSERT_EQ(compact.failures.size(), failures);
    for (const auto& [index, reason] : compact.failures) {
      EXPECT_FALSE(full[index].feasible);
      EXPECT_THAT(reason, HasSubstr(full[index].reasons[0]));
    }
    if (sorted[0].feasible) {
      ASSERT_TRUE(compact.best.has_value());
      EXPECT_EQ(candidates[*compact.best].name, sorted[0].name);
    } else {
      EXPECT_FALSE(compact.best.has_value());
    }
  }
}

}  // namespace
}  // namespace carbonroute::placement

namespace carbonroute::placement {
namespace {

TEST(Ordering, CandidatesWithoutDataComeAfterTheDirtiestWithData) {
  PlacementFacts m;
  m.built_at = absl::FromUnixSeconds(1'800'000'000);
  m.carbon["PL"].grams_per_kwh = 700;
  m.carbon["SE"].grams_per_kwh = 20;
  ScoringOptions options;
  options.now = m.built_at;
  // "AA" and "ZZ" have no reading: scored as the dirtiest, like PL, but listed after it.
  const std::vector<ScoredCandidate> scored = ScoreCandidates(
      PlacementModel(m), {{"AA", "AA", ""}, {"PL", "PL", ""}, {"SE", "SE", ""}, {"ZZ", "ZZ", ""}},
      {}, options);
  ASSERT_EQ(scored.size(), 4u);
  EXPECT_EQ(scored[0].name, "SE");
  EXPECT_EQ(scored[1].name, "PL");
  EXPECT_EQ(scored[2].name, "AA");
  EXPECT_EQ(scored[3].name, "ZZ");
}

TEST(SameRegionRtt, IsNeverLargerThanTheNearestNeighboursAndTheSameInEveryPath) {
  // europe-west9 is 4 ms from europe-west1, less than the 5 ms convention: a
  // node in europe-west1 must not look farther from europe-west1 than one in
  // europe-west9, whether the candidates are nodes or regions.
  PlacementFacts m;
  m.built_at = absl::FromUnixSeconds(1'800'000'000);
  m.carbon["BE"].grams_per_kwh = 100;
  m.carbon["FR"].grams_per_kwh = 100;
  m.region_locations["europe-west1"] = "BE";
  m.region_locations["europe-west9"] = "FR";
  m.rtt["europe-west1"]["europe-west9"] = {absl::Milliseconds(4), RttMethod::kDeclared, m.built_at};
  m.nodes["n1"] = {"BE", "europe-west1"};
  m.nodes["n9"] = {"FR", "europe-west9"};
  Workload workload;
  workload.max_rtt["europe-west1"] = absl::Milliseconds(10);
  ScoringOptions options;
  options.now = m.built_at;
  auto latency_of = [](const std::vector<ScoredCandidate>& scored, const std::string& name) {
    for (const ScoredCandidate& s : scored) {
      if (s.name == name) return s.latency.value_or(absl::InfiniteDuration());
    }
    return absl::InfiniteDuration();
  };
  const std::vector<ScoredCandidate> nodes =
      ScoreCandidates(PlacementModel(m), {{"n1", "", ""}, {"n9", "", ""}}, workload, options);
  EXPECT_EQ(latency_of(nodes, "n1"), absl::Milliseconds(4));
  EXPECT_LE(latency_of(nodes, "n1"), latency_of(nodes, "n9"));
  const std::vector<ScoredCandidate> regions = ScoreCandidates(
      PlacementModel(m), {{"europe-west1", "", ""}, {"europe-west9", "", ""}}, workload, options);
  EXPECT_EQ(latency_of(regions, "europe-west1"), absl::Milliseconds(4));  // not 0: same region
}

// A sampled mesh: "edge" (zone z1) measured only one node of zone z2 and
// none of zone z3; another node of z1 measured z3.
TEST(ScoreCandidates, ZonePairRttStandsInForNodesTheRowDoesNotList) {
  PlacementFacts m = ScoringModel();
  m.nodes["edge"].zone = "z1";
  m.nodes["n-z1"] = {"FR", "europe-west9", "z1"};
  for (const char* name : {"n-z2a", "n-z2b"}) m.nodes[name] = {"SE", "europe-north1", "z2"};
  m.nodes["n-z3"] = {"PL", "europe-central2", "z3"};
  m.rtt["edge"]["n-z2a"] = {absl::Milliseconds(12), RttMethod::kMeasured, kScoringNow};
  m.zone_rtt["z1"]["z3"] = absl::Milliseconds(35);
  m.zone_rtt["z1"]["z2"] = absl::Milliseconds(99);  // the row's own 12 ms is preferred
  Workload limited;
  limited.max_rtt = {{"edge", absl::Milliseconds(20)}};
  const std::vector<Candidate> candidates = {{"n-z2b", "", ""}, {"n-z3", "", ""}};
  const auto scored = ScoreCandidates(PlacementModel(m), candidates, limited, {.now = kScoringNow});
  EXPECT_THAT(Feasible(scored), ElementsAre("n-z2b"));
  EXPECT_EQ(Find(scored, "n-z2b").latency, absl::Milliseconds(12));
  EXPECT_THAT(Find(scored, "n-z3").reasons,
              ElementsAre(HasSubstr("RTT from edge is 35.00 ms (measured: zone-pair median)")));
  Workload relaxed_limit;
  relaxed_limit.max_rtt = {{"edge", absl::Milliseconds(50)}};
  const auto relaxed =
      ScoreCandidates(PlacementModel(m), candidates, relaxed_limit, {.now = kScoringNow});
  EXPECT_THAT(Feasible(relaxed), ElementsAre("n-z2b", "n-z3"));
  EXPECT_THAT(Find(relaxed, "n-z2b").reasons, ::testing::IsEmpty());
}

}  // namespace
}  // namespace carbonroute::placement
