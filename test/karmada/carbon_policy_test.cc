#include "karmada/carbon_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "karmada/target_policy.h"
#include "kube/json_view.h"

namespace carbonroute::karmada {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Parses `json` as `kind` (the document lives in the test).
CarbonPolicy Read(PolicyKind kind, const std::string& json) {
  kube::JsonDocument document;
  absl::StatusOr<kube::JsonField> root = document.Parse(json, "policy");
  EXPECT_TRUE(root.ok()) << root.status();
  absl::StatusOr<CarbonPolicy> policy = ReadCarbonPolicy(kind, *root);
  EXPECT_TRUE(policy.ok()) << policy.status();
  return policy.ok() ? *policy : CarbonPolicy{};
}

// The carbon-aware-karmada-operator's sample (samples/nginx/ in its repository), re-typed.
constexpr char kSeedSample[] = R"({
  "apiVersion": "carbonaware.rossf7.github.io/v1alpha1", "kind": "CarbonAwareKarmadaPolicy",
  "metadata": {"name": "carbon-aware-nginx-policy", "namespace": "default", "generation": 3},
  "spec": {"clusterLocations": [{"name": "member1", "location": "FR"},
                                {"name": "member2", "location": "ES"},
                                {"name": "member3", "location": "DE"}],
           "desiredClusters": 2,
           "karmadaTarget": "propagationpolicies.policy.karmada.io",
           "karmadaTargetRef": {"name": "nginx-propagation", "namespace": "default"}}})";

TEST(CarbonPolicy, TheSeedOperatorsSampleIsReadAsItIs) {
  const CarbonPolicy policy = Read(PolicyKind::kCarbonAwareKarmadaPolicy, kSeedSample);
  EXPECT_EQ(policy.invalid, "");
  EXPECT_EQ(policy.Describe(), "CarbonAwareKarmadaPolicy default/carbon-aware-nginx-policy");
  EXPECT_EQ(policy.generation, 3);
  EXPECT_EQ(policy.target_kind, TargetKind::kPropagationPolicy);
  EXPECT_EQ(policy.target_name, "nginx-propagation");
  EXPECT_EQ(policy.desired_clusters, 2);
  ASSERT_EQ(policy.clusters.size(), 3u);
  EXPECT_EQ(policy.clusters[1].name, "member2");
  EXPECT_EQ(policy.clusters[1].location, "ES");
  EXPECT_FALSE(policy.clusters_from_karmada);
  EXPECT_EQ(ObjectPath(policy.target_kind, policy.target_namespace, policy.target_name),
            "/apis/policy.karmada.io/v1alpha1/namespaces/default/propagationpolicies/"
            "nginx-propagation");
}

TEST(CarbonPolicy, AClusterPropagationPolicyTargetIgnoresTheNamespace) {
  EXPECT_EQ(ObjectPath(TargetKind::kClusterPropagationPolicy, "default", "all"),
            "/apis/policy.karmada.io/v1alpha1/clusterpropagationpolicies/all");
  EXPECT_EQ(CollectionPath(PolicyKind::kCarbonPlacementPolicy),
            "/apis/carbonroute.io/v1alpha1/carbonplacementpolicies");
}

TEST(CarbonPolicy, CarbonroutesOwnKindReadsEveryField) {
  const CarbonPolicy policy = Read(PolicyKind::kCarbonPlacementPolicy, R"({
    "metadata": {"name": "web", "namespace": "shop", "uid": "u1"},
    "spec": {"targetRef": {"kind": "ClusterPropagationPolicy", "name": "web-all"},
             "desiredClusters": 1, "origin": "member-be", "maxRttMs": 25,
             "carbonToleranceGramsPerKwh": 20, "minStay": "1h30m", "replicaWeights": true},
    "status": {"activeClusters": ["member-fr"],
               "clusters": [{"name": "member-fr", "activeSince": "2026-11-25T10:00:00Z"}],
               "conditions": [{"type": "Ready", "status": "True",
                               "lastTransitionTime": "2026-11-25T09:00:00Z"}]}})");
  EXPECT_EQ(policy.invalid, "");
  EXPECT_EQ(policy.target_kind, TargetKind::kClusterPropagationPolicy);
  EXPECT_TRUE(policy.clusters_from_karmada);
  EXPECT_EQ(policy.origin, "member-be");
  EXPECT_EQ(policy.max_rtt, absl::Milliseconds(25));
  EXPECT_EQ(policy.carbon_tolerance, 20);
  EXPECT_EQ(policy.min_stay, absl::Minutes(90));
  EXPECT_TRUE(policy.replica_weights);
  EXPECT_THAT(policy.previous.active_clusters, ElementsAre("member-fr"));
  EXPECT_EQ(policy.previous.active_since.at("member-fr"), absl::FromUnixSeconds(1795600800));
  EXPECT_EQ(policy.previous.condition_status.at("Ready"), "True");
}

TEST(CarbonPolicy, ASpecThatCannotBeActedOnSaysWhichFieldAndValue) {
  struct Case {
    PolicyKind kind;
    std::string spec;
    std::string says;
  };
  const std::vector<Case> cases = {
      {PolicyKind::kCarbonAwareKarmadaPolicy,
       R"({"karmadaTarget": "deployments.apps", "karmadaTargetRef": {"name": "a"},
           "clusterLocations": [{"name": "m", "location": "FR"}], "desiredClusters": 1})",
       "spec.karmadaTarget: expected propagationpolicies.policy.karmada.io or "
       "clusterpropagationpolicies.policy.karmada.io, got \"deployments.apps\""},
      {PolicyKind::kCarbonAwareKarmadaPolicy,
       R"({"karmadaTarget": "propagationpolicies.policy.karmada.io",
           "karmadaTargetRef": {"name": "a"}, "desiredClusters": 1})",
       "spec.clusterLocations: list at least one member cluster"},
      {PolicyKind::kCarbonAwareKarmadaPolicy,
       R"({"karmadaTarget": "propagationpolicies.policy.karmada.io",
           "karmadaTargetRef": {"name": "a"}, "desiredClusters": 1,
           "clusterLocations": [{"name": "m", "location": "FR"}, {"name": "m", "location": "DE"}]})",
       "spec.clusterLocations[1].name: duplicate cluster \"m\""},
      {PolicyKind::kCarbonPlacementPolicy,
       R"({"targetRef": {"kind": "Deployment", "name": "a"}, "desiredClusters": 1})",
       "spec.targetRef.kind: expected PropagationPolicy or ClusterPropagationPolicy, got "
       "\"Deployment\""},
      {PolicyKind::kCarbonPlacementPolicy,
       R"({"targetRef": {"kind": "PropagationPolicy", "name": "a"}, "desiredClusters": 1,
           "minStay": "5 minutes"})",
       "spec.minStay: expected a duration such as 30m or 1h, got \"5 minutes\""},
      {PolicyKind::kCarbonPlacementPolicy,
       R"({"targetRef": {"kind": "PropagationPolicy", "name": "a"}, "desiredClusters": 0})",
       "spec.desiredClusters: expected a whole number ≥ 1"},
      {PolicyKind::kCarbonPlacementPolicy,
       R"({"targetRef": {"kind": "PropagationPolicy", "name": "a"}, "desiredClusters": 1,
           "maxRttMs": 20})",
       "spec.origin and spec.maxRttMs: give both"},
      {PolicyKind::kCarbonPlacementPolicy,
       R"({"targetRef": {"kind": "PropagationPolicy", "name": "a"}, "desiredClusters": 1,
           "carbonToleranceGramsPerKwh": -5})",
       "spec.carbonToleranceGramsPerKwh: expected ≥ 0 gCO2eq/kWh, got -5"},
      {PolicyKind::kCarbonPlacementPolicy,
       R"({"targetRef": {"kind": "PropagationPolicy", "name": "a"}, "desiredClusters": 1,
           "clusters": [{"name": "m"}]})",
       "spec.clusters[0] (m): give a location or a region"},
  };
  for (const Case& c : cases) {
    const CarbonPolicy policy = Read(
        c.kind, R"({"metadata": {"name": "p", "namespace": "default"}, "spec": )" + c.spec + "}");
    EXPECT_THAT(policy.invalid, HasSubstr(c.says)) << c.spec;
  }
}

TEST(CarbonPolicy, AnObjectWithoutANameIsAnErrorNamingTheField) {
  kube::JsonDocument document;
  absl::StatusOr<kube::JsonField> root =
      document.Parse(R"({"metadata": {}})", "CarbonPlacementPolicyList");
  ASSERT_TRUE(root.ok());
  const absl::StatusOr<CarbonPolicy> policy =
      ReadCarbonPolicy(PolicyKind::kCarbonPlacementPolicy, *root);
  EXPECT_THAT(policy.status().message(), HasSubstr("metadata.name"));
}

TEST(TargetPolicy, ReadsWhatThePlacementHasAndPatchesOnlyClusterNames) {
  kube::JsonDocument document;
  absl::StatusOr<kube::JsonField> root = document.Parse(R"({
    "metadata": {"name": "nginx-propagation", "namespace": "default"},
    "spec": {"placement": {
      "clusterAffinity": {"clusterNames": ["member1", "member2"],
                          "labelSelector": {"matchLabels": {"env": "prod"}}},
      "spreadConstraints": [{"spreadByField": "cluster", "maxGroups": 2}],
      "replicaScheduling": {"replicaSchedulingType": "Divided",
                            "replicaDivisionPreference": "Weighted",
                            "weightPreference": {"staticWeightList": [
                              {"targetCluster": {"clusterNames": ["member1"]}, "weight": 2}]}}}}})",
                                                        "PropagationPolicy");
  ASSERT_TRUE(root.ok());
  const absl::StatusOr<TargetPolicy> target = ReadTargetPolicy(*root);
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_THAT(target->cluster_names, ElementsAre("member1", "member2"));
  EXPECT_TRUE(target->divided);
  EXPECT_TRUE(target->weighted);
  EXPECT_EQ(target->static_weights.at("member1"), 2);
  EXPECT_FALSE(target->uses_cluster_affinities);
  EXPECT_EQ(ClusterNamesPatch({"member2", "member3"}, {}),
            R"({"spec":{"placement":{"clusterAffinity":{"clusterNames":["member2","member3"]}}}})");
  EXPECT_EQ(ClusterNamesPatch({"a"}, {{"a", 100}}),
            R"({"spec":{"placement":{"clusterAffinity":{"clusterNames":["a"]},)"
            R"("replicaScheduling":{"replicaDivisionPreference":"Weighted","weightPreference":)"
            R"({"staticWeightList":[{"targetCluster":{"clusterNames":["a"]},"weight":100}]}}}}})");
}

}  // namespace
}  // namespace carbonroute::karmada
