#include "scheduler-lite/karmada_patch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/data_files.h"
#include "test/testing/build_paths.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::scheduler_lite {

using placement::LocationCarbon;
using placement::PlacementFacts;
using placement::PlacementModel;
using placement::ScoreCandidates;
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

constexpr char kPolicy[] = R"yaml(
propagationPolicy: {name: web, namespace: shop}
desiredClusters: 2
clusters:
  - {name: member-pl, location: PL}
  - {name: member-fr, location: FR}
  - {name: member-se, region: europe-north1}
)yaml";

TEST(KarmadaPatch, TheShippedExamplePolicyParses) {
  const std::string path =
      std::string(CARBONROUTE_SOURCE_DIR) + "/deploy/karmada/carbonroute-placement.yaml";
  absl::StatusOr<std::string> text = ReadFileToString(path, "policy file");
  ASSERT_THAT(text, IsOk());
  absl::StatusOr<KarmadaPolicy> policy = ParseKarmadaPolicy(*text, path);
  ASSERT_THAT(policy, IsOk());
  EXPECT_EQ(policy->name, "web");
  EXPECT_EQ(policy->desired_clusters, 2);
  EXPECT_EQ(policy->clusters.size(), 4u);
}

TEST(KarmadaPatch, TwoCleanestClustersWithTheirReadings) {
  absl::StatusOr<KarmadaPolicy> policy = ParseKarmadaPolicy(kPolicy, "p.yaml");
  ASSERT_THAT(policy, IsOk());
  EXPECT_EQ(policy->namespace_name, "shop");
  PlacementFacts model;
  for (auto [location, grams] :
       std::initializer_list<std::pair<const char*, double>>{{"SE", 30}, {"FR", 60}, {"PL", 700}}) {
    LocationCarbon c;
    c.grams_per_kwh = grams;
    model.carbon[location] = c;
  }
  model.region_locations["europe-north1"] = "SE";
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  const auto scored = ScoreCandidates(PlacementModel(model), policy->clusters, {}, {.now = now});
  const KarmadaPatch patch = MakeKarmadaPatch(*policy, scored, now);
  EXPECT_THAT(patch.cluster_names, ::testing::ElementsAre("member-se", "member-fr"));
  const nlohmann::json json = nlohmann::json::parse(patch.json);
  EXPECT_EQ(json["spec"]["placement"]["clusterAffinity"]["clusterNames"],
            nlohmann::json({"member-se", "member-fr"}));
  EXPECT_EQ(json["metadata"]["annotations"]["carbonroute.io/placement-readings"],
            "member-se=SE:30.00 gCO2eq/kWh (current); member-fr=FR:60.00 gCO2eq/kWh (current)");
  EXPECT_THAT(patch.yaml, HasSubstr("# carbonroute: the 2 cleanest of 3 member clusters"));
  EXPECT_THAT(patch.yaml,
              HasSubstr("      clusterNames:\n        - member-se\n        - member-fr\n"));
}

TEST(KarmadaPatch, PolicyErrorsNameTheKey) {
  EXPECT_THAT(ParseKarmadaPolicy("clusters: [{name: a, location: DE}]\n", "p.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "p.yaml: propagationPolicy.name: required key is missing"));
  EXPECT_THAT(ParseKarmadaPolicy("propagationPolicy: {name: w}\nclusters: [{name: a}]\n", "p.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "p.yaml: clusters[0]: give a location (grid zone) or a region"));
  EXPECT_THAT(ParseKarmadaPolicy("propagationPolicy: {name: w}\ndesiredClusters: none\nclusters: "
                                 "[{name: a, location: DE}]\n",
                                 "p.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "p.yaml: desiredClusters: expected a positive integer, got \"none\""));
  EXPECT_THAT(ParseKarmadaPolicy("propagationPolicy: {name: w}\nclustrs: []\n", "p.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument, "p.yaml: clustrs: unknown key"));
}

}  // namespace
}  // namespace carbonroute::scheduler_lite
