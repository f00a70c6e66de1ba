#include "karmada/karmada_patch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "base/data_files.h"
#include "net/curl_http_client.h"
#include "scheduler-lite/karmada_command.h"
#include "test/testing/build_paths.h"
#include "test/testing/fake_clock.h"
#include "test/testing/fake_provider_server.h"
#include "test/testing/status_matchers.h"
#include "test/testing/temp_dir.h"

namespace carbonroute::scheduler_lite {

using karmada::KarmadaPatch;
using karmada::KarmadaPolicy;
using karmada::MakeKarmadaPatch;
using karmada::ParseKarmadaPolicy;

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
  // A cluster's keys are checked too: an unknown one, or a misspelt region, is named.
  EXPECT_THAT(ParseKarmadaPolicy("propagationPolicy: {name: w}\nclusters: [{name: a, region: "
                                 "europe-west1, foo: 1}]\n",
                                 "p.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "p.yaml: clusters[0].foo: unknown key (a cluster has name, location, "
                       "region)"));
  EXPECT_THAT(ParseKarmadaPolicy("propagationPolicy: {name: w}\nclusters: [{name: a, regoin: "
                                 "europe-west1}]\n",
                                 "p.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::HasSubstr("clusters[0].regoin: unknown key")));
}

std::string ShippedFile(const std::string& path) {
  std::stringstream text;
  text << std::ifstream(std::string(CARBONROUTE_SOURCE_DIR) + "/" + path).rdbuf();
  return text.str();
}

// --policy reads the policy objects of deploy/karmada/examples/ too: the operator's own sample
// as the one shot it amounts to, and carbonroute's superset refused naming what only the
// controller can do (it said "apiVersion: unknown key" of both).
TEST(KarmadaPatch, APolicyObjectIsReadOrItsControllerOnlyFieldsNamed) {
  const std::string nginx = "deploy/karmada/examples/nginx-carbon-aware-karmada-policy.yaml";
  absl::StatusOr<KarmadaPolicy> policy = ParseKarmadaPolicy(ShippedFile(nginx), nginx);
  ASSERT_THAT(policy, IsOk());
  EXPECT_EQ(policy->name, "nginx-propagation");
  EXPECT_EQ(policy->namespace_name, "default");
  EXPECT_EQ(policy->desired_clusters, 2);
  ASSERT_EQ(policy->clusters.size(), 3u);
  EXPECT_EQ(policy->clusters[0].name, "member1");
  EXPECT_EQ(policy->clusters[0].location, "FR");
  EXPECT_EQ(policy->clusters[2].location, "DE");

  const std::string own = "deploy/karmada/examples/carbon-placement-policy.yaml";
  EXPECT_THAT(
      ParseKarmadaPolicy(ShippedFile(own), own),
      StatusIs(absl::StatusCode::kInvalidArgument,
               absl::StrCat(own,
                            ": CarbonPlacementPolicy default/web: no spec.clusters (every Karmada "
                            "Cluster), spec.origin and spec.maxRttMs, "
                            "spec.carbonToleranceGramsPerKwh, spec.minStay, spec.replicaWeights: "
                            "the controller's (they need its state or the Karmada API server): "
                            "karmada --controller reads this object once it is applied to the "
                            "Karmada API server; --policy takes it without them, or the one-shot "
                            "format of deploy/karmada/carbonroute-placement.yaml")));
  // Without them, carbonroute's own kind is read as well.
  policy = ParseKarmadaPolicy(R"yaml(
apiVersion: carbonroute.io/v1alpha1
kind: CarbonPlacementPolicy
metadata: {name: web, namespace: shop}
spec:
  targetRef: {kind: PropagationPolicy, name: web-propagation}
  desiredClusters: 1
  clusters: [{name: member-be, region: europe-west1}, {name: member-fr, location: FR}]
)yaml",
                              "p.yaml");
  ASSERT_THAT(policy, IsOk());
  EXPECT_EQ(policy->name, "web-propagation");
  EXPECT_EQ(policy->namespace_name, "shop");
  ASSERT_EQ(policy->clusters.size(), 2u);
  EXPECT_EQ(policy->clusters[0].region, "europe-west1");
  // Objects of other kinds alone are named as such.
  EXPECT_THAT(ParseKarmadaPolicy("apiVersion: policy.karmada.io/v1alpha1\nkind: "
                                 "PropagationPolicy\nmetadata: {name: p}\n",
                                 "p.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "p.yaml: no CarbonAwareKarmadaPolicy or CarbonPlacementPolicy among its "
                       "objects (PropagationPolicy): --policy takes one of those, or the one-shot "
                       "format of deploy/karmada/carbonroute-placement.yaml"));
}

// A region or location the model does not know is a usage error, as for rank, not a patch.
TEST(KarmadaPatch, AClusterAtAnUnknownRegionOrLocationExits2WithoutAPatch) {
  testing::FakeProviderServer collector;
  collector.Route("/metrics", [](const testing::FakeRequest&) {
    return testing::FakeResponse{
        200,
        "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\","
        "location=\"BE\",provider=\"p\"} 150\n",
        {}};
  });
  auto http = *net::CurlHttpClient::Create("test");
  testing::FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  testing::ScopedTempDir dir;
  for (const char* cluster : {"{name: a, region: europe-west99}", "{name: a, location: XX}"}) {
    std::ofstream(dir.File("p.yaml"))
        << "propagationPolicy: {name: w}\nclusters: [" << cluster << ", {name: b, location: BE}]\n";
    KarmadaRequest request;
    request.policy_file = dir.File("p.yaml");
    request.sources.metrics_urls = {collector.base_url() + "/metrics"};
    request.sources.region_locations_csv =
        std::string(CARBONROUTE_SOURCE_DIR) + "/data/cloud-regions.csv";
    std::ostringstream out, err;
    EXPECT_EQ(KarmadaCommand(request, *http, clock, out, err), 2) << cluster << err.str();
    EXPECT_THAT(err.str(), ::testing::HasSubstr("cluster a: unknown")) << cluster;
    EXPECT_EQ(out.str(), "") << cluster;
  }
}

}  // namespace
}  // namespace carbonroute::scheduler_lite
