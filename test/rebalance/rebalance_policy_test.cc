#include "rebalance/rebalance_policy.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace carbonroute::rebalance {
namespace {

using Json = nlohmann::json;

RebalancePolicy Read(const Json& spec) {
  Json object = {
      {"apiVersion", "carbonroute.io/v1alpha1"},
      {"kind", "CarbonRebalancePolicy"},
      {"metadata", {{"name", "web"}, {"namespace", "shop"}, {"uid", "p1"}, {"generation", 3}}}};
  if (!spec.is_null()) object["spec"] = spec;
  kube::JsonDocument document;
  absl::StatusOr<kube::JsonField> root = document.Parse(object.dump(), "CarbonRebalancePolicy");
  EXPECT_TRUE(root.ok()) << root.status();
  absl::StatusOr<RebalancePolicy> policy = ReadRebalancePolicy(*root);
  EXPECT_TRUE(policy.ok()) << policy.status();
  return policy.value_or(RebalancePolicy{});
}

TEST(ReadRebalancePolicy, DefaultsWhereTheSpecIsSilent) {
  const RebalancePolicy policy = Read(Json::object());
  EXPECT_EQ(policy.invalid, "");
  EXPECT_EQ(policy.Describe(), "CarbonRebalancePolicy shop/web");
  EXPECT_EQ(policy.generation, 3);
  EXPECT_EQ(policy.carbon_tolerance, 50);
  EXPECT_EQ(policy.min_stay, absl::Minutes(30));
  EXPECT_EQ(policy.horizon, absl::Hours(4));
  EXPECT_EQ(policy.period, absl::Hours(1));
  EXPECT_EQ(policy.max_moves_per_period, 1);
  EXPECT_FALSE(policy.joules_per_start.has_value());
  EXPECT_EQ(policy.startup_time, absl::Seconds(30));
  EXPECT_FALSE(policy.allow_local_storage);
  EXPECT_TRUE(policy.Selects("StatefulSet", {}));
  EXPECT_FALSE(policy.Selects("DaemonSet", {}));
  EXPECT_EQ(PolicyPath(policy),
            "/apis/carbonroute.io/v1alpha1/namespaces/shop/carbonrebalancepolicies/web");
}

TEST(ReadRebalancePolicy, EverySettingDownToSeconds) {
  const RebalancePolicy policy = Read({{"selector", {{"matchLabels", {{"tier", "web"}}}}},
                                       {"workloadKinds", {"Deployment"}},
                                       {"carbonToleranceGramsPerKwh", 20},
                                       {"minStay", "5s"},
                                       {"horizon", "2d"},
                                       {"maxMovesPerPeriod", 3},
                                       {"period", "90s"},
                                       {"joulesPerStart", 250.5},
                                       {"startupTime", "1m"},
                                       {"allowLocalStorage", true}});
  EXPECT_EQ(policy.invalid, "");
  EXPECT_EQ(policy.carbon_tolerance, 20);
  EXPECT_EQ(policy.min_stay, absl::Seconds(5));
  EXPECT_EQ(policy.horizon, absl::Hours(48));
  EXPECT_EQ(policy.max_moves_per_period, 3);
  EXPECT_EQ(policy.period, absl::Seconds(90));
  EXPECT_EQ(policy.joules_per_start, 250.5);
  EXPECT_EQ(policy.startup_time, absl::Minutes(1));
  EXPECT_TRUE(policy.allow_local_storage);
  EXPECT_TRUE(policy.Selects("Deployment", {{"tier", "web"}, {"team", "a"}}));
  EXPECT_FALSE(policy.Selects("Deployment", {{"tier", "batch"}}));
  EXPECT_FALSE(policy.Selects("StatefulSet", {{"tier", "web"}}));
}

TEST(ReadRebalancePolicy, AWrongFieldIsNamedWithItsValue) {
  EXPECT_EQ(Read({{"minStay", "soon"}}).invalid,
            "spec.minStay: expected a duration > 0 such as 30s, 10m or 4h "
            "(ms, s, m, h, d (24h) or w (7d)), got \"soon\"");
  EXPECT_EQ(Read({{"maxMovesPerPeriod", 1.5}}).invalid,
            "spec.maxMovesPerPeriod: expected a whole number ≥ 1, got 1.5");
  EXPECT_EQ(Read({{"carbonToleranceGramsPerKwh", -5}}).invalid,
            "spec.carbonToleranceGramsPerKwh: expected a number ≥ 0, got -5");
  EXPECT_EQ(Read({{"workloadKinds", {"DaemonSet"}}}).invalid,
            "spec.workloadKinds[0]: expected Deployment, StatefulSet or "
            "ReplicaSet, got \"DaemonSet\" (a DaemonSet's Pods never move)");
  EXPECT_EQ(Read(nullptr).invalid, "spec: required");
}

}  // namespace
}  // namespace carbonroute::rebalance
