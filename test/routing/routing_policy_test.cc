#include "routing/routing_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_replace.h"
#include "routing/destination_rule_patch.h"

namespace carbonroute::routing {
namespace {

using ::testing::HasSubstr;

constexpr char kPolicy[] = R"({"apiVersion":"carbonroute.io/v1alpha1","kind":"CarbonRoutingPolicy",
  "metadata":{"name":"checkout","namespace":"shop","uid":"u1","generation":3},
  "spec":{"targetRefs":[{"group":"networking.istio.io","kind":"DestinationRule","name":"checkout"},
                        {"group":"gateway.networking.k8s.io","kind":"HTTPRoute","name":"web"}],
          "maxRttMs":30,"carbonToleranceGramsPerKwh":10.5,"minStay":"10m","headroomPercent":20,
          "joulesPerRequest":0.4,
          "localities":[{"locality":"europe-west1/*","capacity":4},
                        {"locality":"eu-b","location":"DE","region":"europe-west3"}],
          "origins":[{"locality":"europe-west2/*","demand":2}]}})";

RoutingPolicy Read(const std::string& json) {
  kube::JsonDocument document;
  absl::StatusOr<kube::JsonField> root = document.Parse(json, "CarbonRoutingPolicy");
  EXPECT_TRUE(root.ok()) << root.status();
  absl::StatusOr<RoutingPolicy> policy = ReadRoutingPolicy(*root);
  EXPECT_TRUE(policy.ok()) << policy.status();
  return policy.value_or(RoutingPolicy{});
}

std::string With(const std::string& from, const std::string& to) {
  return absl::StrReplaceAll(kPolicy, {{from, to}});
}

TEST(ReadRoutingPolicy, EveryFieldAsTheApiReturnsIt) {
  const RoutingPolicy policy = Read(kPolicy);
  EXPECT_EQ(policy.invalid, "");
  EXPECT_EQ(policy.Describe(), "CarbonRoutingPolicy shop/checkout");
  EXPECT_EQ(policy.generation, 3);
  ASSERT_EQ(policy.targets.size(), 2u);
  EXPECT_EQ(policy.targets[0].Describe("shop"), "DestinationRule shop/checkout");
  EXPECT_EQ(policy.targets[1].kind, TargetKind::kHttpRoute);
  EXPECT_EQ(policy.max_rtt, absl::Milliseconds(30));
  EXPECT_EQ(policy.carbon_tolerance, 10.5);
  EXPECT_EQ(policy.min_stay, absl::Minutes(10));
  EXPECT_EQ(policy.headroom_percent, 20);
  EXPECT_EQ(policy.joules_per_request, 0.4);
  ASSERT_EQ(policy.localities.size(), 2u);
  EXPECT_EQ(policy.localities[0].region, "europe-west1");
  EXPECT_EQ(policy.localities[0].amount, 4);
  EXPECT_EQ(policy.localities[1].locality, "eu-b/*");  // a bare region is region/*
  EXPECT_EQ(policy.localities[1].region, "europe-west3");
  EXPECT_EQ(policy.localities[1].location, "DE");
  ASSERT_EQ(policy.origins.size(), 1u);
  EXPECT_EQ(policy.origins[0].amount, 2);
}

TEST(ReadRoutingPolicy, ASpecItCannotActOnSaysTheFieldAndTheValue) {
  EXPECT_THAT(Read(With(R"("kind":"HTTPRoute")", R"("kind":"Route")")).invalid,
              HasSubstr("spec.targetRefs[1]: expected {group: networking.istio.io"));
  EXPECT_THAT(Read(With(R"("maxRttMs":30)", R"("maxRttMs":0)")).invalid,
              HasSubstr("spec.maxRttMs: expected a number > 0, got 0"));
  EXPECT_THAT(Read(With(R"("maxRttMs":30)", R"("maxRttMs":"30ms")")).invalid,
              HasSubstr("spec.maxRttMs: expected a number"));
  EXPECT_THAT(Read(With(R"("minStay":"10m")", R"("minStay":"soon")")).invalid,
              HasSubstr("spec.minStay: expected a duration such as 10m or 1h, got \"soon\""));
  EXPECT_THAT(Read(With(R"("headroomPercent":20)", R"("headroomPercent":-5)")).invalid,
              HasSubstr("spec.headroomPercent: expected a number ≥ 0, got -5"));
  EXPECT_THAT(Read(With(R"("locality":"eu-b")", R"("locality":"europe-west1/*")")).invalid,
              HasSubstr("spec.localities[1].locality: \"europe-west1/*\" is given twice"));
  EXPECT_THAT(Read(With(R"("targetRefs":[)", R"("targetRefs":[],"x":[)")).invalid,
              HasSubstr("spec.targetRefs: name at least one"));
  kube::JsonDocument document;
  absl::StatusOr<kube::JsonField> nameless = document.Parse(R"({"metadata":{}})", "policy");
  ASSERT_TRUE(nameless.ok());
  EXPECT_FALSE(ReadRoutingPolicy(*nameless).ok());
}

RuleCheck Check(const std::string& traffic_policy) {
  kube::JsonDocument document;
  absl::StatusOr<kube::JsonField> rule = document.Parse(
      R"({"spec":{"host":"checkout","trafficPolicy":)" + traffic_policy + "}}", "DestinationRule");
  EXPECT_TRUE(rule.ok()) << rule.status();
  return CheckDestinationRule(*rule);
}

TEST(CheckDestinationRule, FailoverOrNoOutlierDetectionIsNotWritten) {
  EXPECT_EQ(Check(R"({"outlierDetection":{"consecutive5xxErrors":5}})").refusal, "");
  EXPECT_EQ(Check(R"({"outlierDetection":{"consecutive5xxErrors":5}})").host, "checkout");
  // An empty failover list sets nothing.
  EXPECT_EQ(Check(R"({"outlierDetection":{"interval":"10s"},
                      "loadBalancer":{"localityLbSetting":{"failover":[]}}})")
                .refusal,
            "");
  const RuleCheck failover = Check(R"({"outlierDetection":{"interval":"10s"},
      "loadBalancer":{"localityLbSetting":{"failoverPriority":["topology.kubernetes.io/region"]}}})");
  EXPECT_EQ(failover.refusal, kFailoverConfigured);
  EXPECT_THAT(failover.message,
              HasSubstr("spec.trafficPolicy.loadBalancer.localityLbSetting.failoverPriority"));
  EXPECT_EQ(Check(R"({"loadBalancer":{"simple":"ROUND_ROBIN"}})").refusal,
            kOutlierDetectionMissing);
}

TEST(DistributeMergePatch, OnlyTheLocalitySettingIsWritten) {
  LocalityLbSetting setting;
  setting.distribute.push_back({"a/*", {{"a/*", 60}, {"b/*", 40}}});
  EXPECT_EQ(DistributeMergePatch(setting),
            R"({"spec":{"trafficPolicy":{"loadBalancer":{"localityLbSetting":{"enabled":true,)"
            R"("distribute":[{"from":"a/*","to":{"a/*":60,"b/*":40}}]}}}}})");
}

}  // namespace
}  // namespace carbonroute::routing
