#include "karmada/placement_choice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placement/placement_model.h"

namespace carbonroute::karmada {
namespace {

using placement::Candidate;
using placement::ScoredCandidate;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const absl::Time kT0 = absl::FromUnixSeconds(1795600800);  // 2026-11-25T10:00:00Z

// A model with these readings (gCO2eq/kWh, valid for an hour from kT0) and
// the declared RTT from region "origin" to each location's region "r-<LOC>".
struct World {
  std::map<std::string, double> grams;
  std::map<std::string, double> rtt_ms;

  std::vector<ScoredCandidate> Score(const CarbonPolicy& policy, absl::Time now) const {
    placement::PlacementFacts facts;
    facts.built_at = now;
    for (const auto& [location, value] : grams) {
      placement::LocationCarbon carbon;
      carbon.provider = "static";
      carbon.grams_per_kwh = value;
      carbon.valid_to = now + absl::Hours(1);
      carbon.observed_at = now;
      facts.carbon[location] = carbon;
    }
    for (const auto& [location, ms] : rtt_ms) {
      facts.region_locations["r-" + location] = location;
      facts.rtt["origin"]["r-" + location] =
          placement::RttEntry{absl::Milliseconds(ms), RttMethod::kDeclared, now};
    }
    facts.region_locations["origin"] = "XX";
    const placement::PlacementModel model(facts);
    std::vector<Candidate> candidates;
    for (const Candidate& c : policy.clusters) {
      candidates.push_back(
          {c.name, c.location, rtt_ms.contains(c.location) ? "r-" + c.location : ""});
    }
    placement::Workload workload;
    if (policy.max_rtt) workload.max_rtt[policy.origin] = *policy.max_rtt;
    placement::ScoringOptions options;
    options.now = now;
    return placement::ScoreCandidates(model, candidates, workload, options);
  }
};

CarbonPolicy Policy(int desired, const std::vector<std::string>& locations) {
  CarbonPolicy policy;
  policy.desired_clusters = desired;
  for (const std::string& location : locations) {
    policy.clusters.push_back({"member-" + location, location, ""});
  }
  return policy;
}

PlacementChoice Choose(const CarbonPolicy& policy, const World& world,
                       const std::vector<std::string>& current, absl::Time now = kT0,
                       bool divided = true) {
  const std::vector<ScoredCandidate> scored = world.Score(policy, now);
  ChoiceInput input{
      .policy = &policy, .scored = &scored, .current = current, .divided = divided, .now = now};
  return ChoosePlacement(input);
}

TEST(PlacementChoice, TheCleanestAreChosenAndEqualOnesOrderByName) {
  const CarbonPolicy policy = Policy(2, {"FR", "DE", "ES", "SE"});
  const World world{{{"FR", 56}, {"DE", 380}, {"ES", 56}, {"SE", 30}}, {}};
  const PlacementChoice choice = Choose(policy, world, {});
  EXPECT_THAT(choice.active, ElementsAre("member-SE", "member-ES"));  // ES before FR: by name
  EXPECT_TRUE(choice.changed);
  EXPECT_EQ(choice.clusters.size(), 4u);
  EXPECT_THAT(choice.message, HasSubstr("moved from [] to [member-SE, member-ES]"));
}

TEST(PlacementChoice, TheSameSetInAnotherOrderIsNoChange) {
  const CarbonPolicy policy = Policy(2, {"FR", "DE", "SE"});
  const World world{{{"FR", 56}, {"DE", 380}, {"SE", 30}}, {}};
  const PlacementChoice choice = Choose(policy, world, {"member-FR", "member-SE"});
  EXPECT_FALSE(choice.changed);
  EXPECT_THAT(choice.active, ElementsAre("member-SE", "member-FR"));
}

TEST(PlacementChoice, MissingDataKeepsTheCurrentClustersAndNeverWidens) {
  const CarbonPolicy policy = Policy(2, {"FR", "DE", "ES"});
  const World world{{{"FR", 56}}, {}};  // DE and ES have no reading
  PlacementChoice choice = Choose(policy, world, {"member-DE", "member-ES"});
  EXPECT_TRUE(choice.kept_for_missing_data);
  EXPECT_FALSE(choice.changed);
  EXPECT_THAT(choice.active, ElementsAre("member-DE", "member-ES"));
  EXPECT_THAT(choice.missing_data, ElementsAre("member-DE", "member-ES"));
  EXPECT_THAT(choice.message, HasSubstr("missing data never widens the placement"));
  // A target that places on every cluster (no clusterNames) stays so: not narrowed to one.
  choice = Choose(policy, world, {});
  EXPECT_TRUE(choice.kept_for_missing_data);
  EXPECT_TRUE(choice.active.empty());
  EXPECT_FALSE(choice.changed);
}

TEST(PlacementChoice, AClusterBeyondTheLatencyLimitIsNeverChosenAndSaysItsRtt) {
  CarbonPolicy policy = Policy(1, {"FR", "SE"});
  policy.origin = "origin";
  policy.max_rtt = absl::Milliseconds(20);
  const World world{{{"FR", 56}, {"SE", 10}}, {{"FR", 12}, {"SE", 31}}};
  const PlacementChoice choice = Choose(policy, world, {});
  EXPECT_THAT(choice.active, ElementsAre("member-FR"));
  for (const ClusterDecision& c : choice.clusters) {
    if (c.name != "member-SE") continue;
    EXPECT_FALSE(c.active);
    EXPECT_FALSE(c.valid);
    EXPECT_THAT(c.reason, HasSubstr("not eligible"));
    EXPECT_THAT(c.reason, HasSubstr("31"));
  }
}

TEST(PlacementChoice, ToleranceAndMinStayHoldThroughASmallChangeAndMoveOnALargeOne) {
  CarbonPolicy policy = Policy(1, {"FR", "ES"});
  policy.carbon_tolerance = 20;
  policy.min_stay = absl::Hours(1);
  policy.previous.active_since["member-FR"] = kT0;
  // Within minStay even a large change holds.
  PlacementChoice choice =
      Choose(policy, World{{{"FR", 100}, {"ES", 10}}, {}}, {"member-FR"}, kT0 + absl::Minutes(30));
  EXPECT_FALSE(choice.changed);
  EXPECT_THAT(choice.clusters[1].reason + choice.clusters[0].reason, HasSubstr("minStay 1h"));
  // After minStay: a small change (ES 15 below FR, tolerance 20) holds.
  choice =
      Choose(policy, World{{{"FR", 100}, {"ES", 85}}, {}}, {"member-FR"}, kT0 + absl::Hours(2));
  EXPECT_FALSE(choice.changed);
  EXPECT_THAT(choice.active, ElementsAre("member-FR"));
  // A large one moves, and the message names both values.
  choice =
      Choose(policy, World{{{"FR", 100}, {"ES", 60}}, {}}, {"member-FR"}, kT0 + absl::Hours(2));
  EXPECT_TRUE(choice.changed);
  EXPECT_THAT(choice.active, ElementsAre("member-ES"));
  EXPECT_THAT(choice.message, HasSubstr("carbonToleranceGramsPerKwh 20, minStay 1h"));
  EXPECT_EQ(choice.clusters[0].active_since, kT0 + absl::Hours(2));
}

TEST(PlacementChoice, WithoutStickinessAnEquallyCleanAlternativeDoesNotMove) {
  const CarbonPolicy policy = Policy(1, {"FR", "ES"});
  const PlacementChoice choice = Choose(policy, World{{{"FR", 60}, {"ES", 60}}, {}}, {"member-FR"});
  EXPECT_FALSE(choice.changed);
  EXPECT_THAT(choice.active, ElementsAre("member-FR"));
}

TEST(PlacementChoice, WeightsAreInverseIntensityForADividedTarget) {
  CarbonPolicy policy = Policy(3, {"FR", "ES", "DE"});
  policy.replica_weights = true;
  const World world{{{"FR", 50}, {"ES", 100}, {"DE", 400}}, {}};
  PlacementChoice choice = Choose(policy, world, {});
  EXPECT_EQ(choice.weights, (std::map<std::string, int64_t>{
                                {"member-DE", 13}, {"member-ES", 50}, {"member-FR", 100}}));
  choice = Choose(policy, world, {}, kT0, /*divided=*/false);  // Duplicated: no weights
  EXPECT_TRUE(choice.weights.empty());
}

}  // namespace
}  // namespace carbonroute::karmada
