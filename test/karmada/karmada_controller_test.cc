#include "karmada/karmada_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/match.h"
#include "exporter/metrics_page.h"
#include "test/testing/captured_log.h"
#include "test/testing/counter_value.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_clock.h"
#include "test/testing/metrics_scrape.h"

namespace carbonroute::karmada {
namespace {

using Json = nlohmann::json;
using ::testing::ElementsAre;
using testing::FakeBatchApi;
using testing::FakeClock;
using ::testing::HasSubstr;

const absl::Time kControllerStart = absl::FromUnixSeconds(1795600800);  // 2026-11-25T10:00:00Z
constexpr char kPolicyPath[] =
    "/apis/policy.karmada.io/v1alpha1/namespaces/default/propagationpolicies/nginx-propagation";

// The carbon-aware-karmada-operator's samples/nginx/ objects, re-typed.
Json SeedPolicy() {
  return Json::parse(R"({
    "apiVersion": "carbonaware.rossf7.github.io/v1alpha1", "kind": "CarbonAwareKarmadaPolicy",
    "metadata": {"name": "carbon-aware-nginx-policy", "namespace": "default"},
    "spec": {"clusterLocations": [{"name": "member1", "location": "FR"},
                                  {"name": "member2", "location": "ES"},
                                  {"name": "member3", "location": "DE"}],
             "desiredClusters": 2,
             "karmadaTarget": "propagationpolicies.policy.karmada.io",
             "karmadaTargetRef": {"name": "nginx-propagation", "namespace": "default"}}})");
}
Json NginxPropagation() {
  return Json::parse(R"({
    "apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
    "metadata": {"name": "nginx-propagation", "namespace": "default"},
    "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}],
             "placement": {"replicaScheduling": {"replicaSchedulingType": "Divided"}}}})");
}

struct Harness {
  FakeClock clock{kControllerStart};
  FakeBatchApi api{[this] { return clock.Now(); }};
  kube::KubeClient kube{kube::KubeConnection{.server = "http://fake"}, api};
  // What the collectors say now, gCO2eq/kWh by grid location; none when down.
  std::map<std::string, double> intensity = {{"FR", 56}, {"ES", 120}, {"DE", 380}, {"BE", 150}};
  bool collectors_down = false;
  prometheus::Registry registry;
  KarmadaMetrics metrics{registry};
  testing::CapturedLog log;
  kube::EventRecorder events{kube, "carbonroute-karmada", "replica-a"};

  Harness() {
    api.ServeResource("carbonaware.rossf7.github.io/v1alpha1", "carbonawarekarmadapolicies", true);
    api.ServeResource("carbonroute.io/v1alpha1", "carbonplacementpolicies", true);
    api.ServeResource("policy.karmada.io/v1alpha1", "propagationpolicies", true, false);
    api.ServeResource("policy.karmada.io/v1alpha1", "clusterpropagationpolicies", false, false);
    api.ServeResource("cluster.karmada.io/v1alpha1", "clusters", false);
  }

  model_sources::LoadedModel Load(absl::Time now) {
    model_sources::LoadedModel loaded;
    placement::PlacementFacts facts;
    facts.built_at = now;
    if (collectors_down) {
      loaded.errors.push_back(absl::UnavailableError("http://collector:9464/metrics: refused"));
    } else {
      // Hourly readings, each fetched two minutes before its hour began.
      const absl::Time hour =
          kControllerStart + absl::Floor(now - kControllerStart, absl::Hours(1));
      for (const auto& [location, grams] : intensity) {
        placement::LocationCarbon carbon;
        carbon.provider = "static";
        carbon.grams_per_kwh = grams;
        carbon.valid_to = hour + absl::Hours(1);
        carbon.age = now - (hour - absl::Minutes(2));
        carbon.observed_at = now;
        facts.carbon[location] = carbon;
      }
      loaded.sources_read = 1;
    }
    // The declared matrix between the clusters' regions (ms).
    facts.region_locations = {{"europe-west1", "BE"},
                              {"europe-west9", "FR"},
                              {"europe-southwest1", "ES"},
                              {"europe-west3", "DE"}};
    const std::map<std::string, double> from_belgium = {
        {"europe-west1", 1}, {"europe-west9", 8}, {"europe-southwest1", 28}, {"europe-west3", 9}};
    for (const auto& [region, ms] : from_belgium) {
      facts.rtt["europe-west1"][region] = {absl::Milliseconds(ms), RttMethod::kDeclared, now};
    }
    loaded.model = std::make_shared<const placement::PlacementModel>(facts);
    return loaded;
  }

  std::unique_ptr<KarmadaController> Controller(kube::LeaseElection* lease = nullptr) {
    return std::make_unique<KarmadaController>(
        KarmadaControllerOptions{}, controller_runtime::Wiring{kube, clock, lease, &events},
        [this](absl::Time now) { return Load(now); }, metrics);
  }
  Json Object(const std::string& plural, const std::string& ns, const std::string& name) const {
    return api.Get(plural, ns, name);
  }
  Json ClusterNames(const std::string& plural = "propagationpolicies",
                    const std::string& ns = "default",
                    const std::string& name = "nginx-propagation") const {
    return Object(plural, ns, name)["spec"]["placement"]["clusterAffinity"].value("clusterNames",
                                                                                  Json::array());
  }
  Json Status(const std::string& plural = "carbonawarekarmadapolicies",
              const std::string& name = "carbon-aware-nginx-policy") const {
    return Object(plural, "default", name).value("status", Json());
  }
  static std::string Condition(const Json& status, const std::string& type) {
    for (const Json& c : status.value("conditions", Json::array())) {
      if (c["type"] == type)
        return c["status"].get<std::string>() + " " + c["reason"].get<std::string>();
    }
    return "absent";
  }
  int Calls(const std::string& method, const std::string& target) const {
    int count = 0;
    for (const testing::FakeApiCall& call : api.calls()) {
      count += call.method == method && call.target == target;
    }
    return count;
  }
  std::vector<std::string> EventReasons() const {
    std::vector<std::string> reasons;
    for (const Json& event : api.events()) reasons.push_back(event["reason"]);
    return reasons;
  }
  std::string Metrics() { return testing::ScrapeMetricsPage(registry); }
};

TEST(KarmadaController, TheSeedOperatorsSampleIsPlacedAndReportedInTheSeedsShape) {
  Harness h;
  h.api.PutObject("propagationpolicies", NginxPropagation());
  h.api.PutObject("carbonawarekarmadapolicies", SeedPolicy());
  h.Controller()->RunOnce();

  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member1", "member2"])"));
  // A merge patch of clusterNames only: the policy's other fields are kept.
  const Json policy = h.Object("propagationpolicies", "default", "nginx-propagation");
  EXPECT_EQ(policy["spec"]["resourceSelectors"][0]["name"], "nginx");
  EXPECT_EQ(policy["spec"]["placement"]["replicaScheduling"]["replicaSchedulingType"], "Divided");
  for (const testing::FakeApiCall& call : h.api.calls()) {
    if (call.target == kPolicyPath) {
      EXPECT_EQ(call.method, "PATCH");
      EXPECT_EQ(call.content_type, "application/merge-patch+json");
    }
  }
  const Json status = h.Status();
  EXPECT_EQ(status["activeClusters"], Json::parse(R"(["member1", "member2"])"));
  ASSERT_EQ(status["clusters"].size(), 3u);
  const Json& fr = status["clusters"][0];
  EXPECT_EQ(fr["name"], "member1");
  EXPECT_EQ(fr["location"], "FR");
  EXPECT_EQ(fr["isValid"], true);
  EXPECT_EQ(fr["carbonIntensity"]["value"], "56.00");
  EXPECT_EQ(fr["carbonIntensity"]["units"], "gCO2eq/kWh");
  EXPECT_EQ(fr["carbonIntensity"]["validFrom"], "2026-11-25T09:58:00Z");
  EXPECT_EQ(fr["carbonIntensity"]["validTo"], "2026-11-25T11:00:00Z");
  EXPECT_EQ(status["clusters"][2]["name"], "member3");
  EXPECT_EQ(Harness::Condition(status, "Ready"), "True Placed");
  EXPECT_EQ(Harness::Condition(status, "DataMissing"), "False AllReadings");
  EXPECT_EQ(Harness::Condition(status, "TargetNotFound"), "False Found");
  EXPECT_THAT(h.EventReasons(), ElementsAre("CarbonPlacementMoved"));
  const std::string metrics = h.Metrics();
  EXPECT_THAT(
      metrics,
      HasSubstr(
          R"(carbon_aware_karmada_operator_cluster_carbon_intensity{active="true",cluster="member1",location="FR"} 56)"));
  EXPECT_THAT(
      metrics,
      HasSubstr(
          R"(carbon_aware_karmada_operator_cluster_carbon_intensity{active="false",cluster="member3",location="DE"} 380)"));
  EXPECT_THAT(
      metrics,
      HasSubstr(
          R"(carbon_aware_karmada_operator_reconciles_total{app="carbon-aware-nginx-policy"} 1)"));
  EXPECT_THAT(
      metrics,
      HasSubstr(
          R"(carbonroute_karmada_moves_total{kind="CarbonAwareKarmadaPolicy",namespace="default",policy="carbon-aware-nginx-policy"} 1)"));
}

TEST(KarmadaController, AnUnchangedChoiceWritesNothingAndAChangeReRanksWithinOneResync) {
  Harness h;
  h.api.PutObject("propagationpolicies", NginxPropagation());
  h.api.PutObject("carbonawarekarmadapolicies", SeedPolicy());
  auto controller = h.Controller();
  controller->RunOnce();
  const std::string status_path =
      "/apis/carbonaware.rossf7.github.io/v1alpha1/namespaces/default/carbonawarekarmadapolicies/"
      "carbon-aware-nginx-policy/status";
  h.clock.Advance(absl::Minutes(5));
  controller->RunOnce();
  EXPECT_EQ(h.Calls("PATCH", kPolicyPath), 1);
  EXPECT_EQ(h.Calls("PATCH", status_path), 1);

  h.intensity["DE"] = 20;  // Germany becomes the cleanest
  h.clock.Advance(absl::Minutes(4));
  controller->RunOnce();  // within the resync: not looked at yet
  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member1", "member2"])"));
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member3", "member1"])"));
  EXPECT_EQ(h.Status()["activeClusters"], Json::parse(R"(["member3", "member1"])"));
  EXPECT_THAT(h.EventReasons(), ElementsAre("CarbonPlacementMoved", "CarbonPlacementMoved"));
  EXPECT_THAT(h.api.events()[1]["message"].get<std::string>(),
              HasSubstr("moved from [member1, member2] to [member3, member1]"));
}

TEST(KarmadaController, EveryCollectorDownKeepsTheLastPlacementAndSaysWhy) {
  Harness h;
  h.api.PutObject("propagationpolicies", NginxPropagation());
  h.api.PutObject("carbonawarekarmadapolicies", SeedPolicy());
  auto controller = h.Controller();
  controller->RunOnce();
  h.collectors_down = true;
  for (int pass = 0; pass < 3; ++pass) {
    h.clock.Advance(absl::Minutes(5));
    controller->RunOnce();
  }
  EXPECT_EQ(h.ClusterNames(),
            Json::parse(R"(["member1", "member2"])"));  // not [] (= every cluster)
  EXPECT_EQ(h.Calls("PATCH", kPolicyPath), 1);
  const Json status = h.Status();
  EXPECT_EQ(Harness::Condition(status, "Ready"), "False DataMissing");
  EXPECT_EQ(Harness::Condition(status, "DataMissing"), "True NoReading");
  EXPECT_EQ(status["activeClusters"], Json::parse(R"(["member1", "member2"])"));
  EXPECT_EQ(status["clusters"][0]["isValid"], false);
  EXPECT_FALSE(status["clusters"][0].contains("carbonIntensity"));
  // One Warning for the problem, not one per pass.
  EXPECT_THAT(h.EventReasons(), ElementsAre("CarbonPlacementMoved", "DataMissing"));
  EXPECT_EQ(h.api.events()[1]["type"], "Warning");
  EXPECT_THAT(h.Metrics(), HasSubstr(R"(carbonroute_karmada_errors_total{operation="model"} 3)"));
  EXPECT_THAT(h.Metrics(),
              Not(HasSubstr("carbon_aware_karmada_operator_cluster_carbon_intensity{")));

  h.collectors_down = false;  // back: Ready again, the condition's time moves
  h.clock.Advance(absl::Minutes(5));
  controller->RunOnce();
  EXPECT_EQ(Harness::Condition(h.Status(), "Ready"), "True Placed");
}

TEST(KarmadaController, NoDataOnTheFirstReconcileNeverWidensAnEmptyPlacement) {
  Harness h;
  h.collectors_down = true;
  h.api.PutObject("propagationpolicies", NginxPropagation());
  h.api.PutObject("carbonawarekarmadapolicies", SeedPolicy());
  h.Controller()->RunOnce();
  EXPECT_EQ(h.Calls("PATCH", kPolicyPath), 0);
  EXPECT_EQ(Harness::Condition(h.Status(), "Ready"), "False DataMissing");
}

TEST(KarmadaController, AClusterPropagationPolicyIsPlacedAtItsClusterPath) {
  Harness h;
  Json cpp = NginxPropagation();
  cpp["kind"] = "ClusterPropagationPolicy";
  cpp["metadata"].erase("namespace");
  h.api.PutObject("clusterpropagationpolicies", cpp);
  Json seed = SeedPolicy();
  seed["spec"]["karmadaTarget"] = "clusterpropagationpolicies.policy.karmada.io";
  seed["spec"]["desiredClusters"] = 1;
  h.api.PutObject("carbonawarekarmadapolicies", seed);
  h.Controller()->RunOnce();
  EXPECT_EQ(h.ClusterNames("clusterpropagationpolicies", "", "nginx-propagation"),
            Json::parse(R"(["member1"])"));
  EXPECT_EQ(
      h.Calls("PATCH",
              "/apis/policy.karmada.io/v1alpha1/clusterpropagationpolicies/nginx-propagation"),
      1);
}

TEST(KarmadaController, MistakesGetAConditionNamingTheProblemAndNoWrite) {
  Harness h;
  Json affinities = NginxPropagation();
  affinities["spec"]["placement"]["clusterAffinities"] =
      Json::parse(R"([{"affinityName": "primary", "clusterNames": ["member1"]}])");
  h.api.PutObject("propagationpolicies", affinities);
  h.api.PutObject("carbonawarekarmadapolicies", SeedPolicy());
  Json missing = SeedPolicy();
  missing["metadata"]["name"] = "points-nowhere";
  missing["spec"]["karmadaTargetRef"]["name"] = "no-such-policy";
  h.api.PutObject("carbonawarekarmadapolicies", missing);
  Json wrong_kind = SeedPolicy();
  wrong_kind["metadata"]["name"] = "wrong-kind";
  wrong_kind["spec"]["karmadaTarget"] = "deployments.apps";
  h.api.PutObject("carbonawarekarmadapolicies", wrong_kind);
  h.Controller()->RunOnce();

  EXPECT_EQ(h.Calls("PATCH", kPolicyPath), 0);
  const Json refused = h.Status();
  EXPECT_EQ(Harness::Condition(refused, "Ready"), "False ClusterAffinitiesUnsupported");
  EXPECT_THAT(refused["conditions"][0]["message"].get<std::string>(),
              HasSubstr("uses spec.placement.clusterAffinities"));
  const Json nowhere = h.Status("carbonawarekarmadapolicies", "points-nowhere");
  EXPECT_EQ(Harness::Condition(nowhere, "TargetNotFound"), "True NotFound");
  EXPECT_THAT(nowhere["conditions"][0]["message"].get<std::string>(),
              HasSubstr("PropagationPolicy default/no-such-policy does not exist"));
  const Json wrong = h.Status("carbonawarekarmadapolicies", "wrong-kind");
  EXPECT_EQ(Harness::Condition(wrong, "Ready"), "False InvalidSpec");
  EXPECT_THAT(wrong["conditions"][0]["message"].get<std::string>(),
              HasSubstr("got \"deployments.apps\""));
  EXPECT_EQ(h.api.events().size(), 3u);  // one Warning each
}

TEST(KarmadaController, AMissingTargetIsPlacedOnceItAppears) {
  Harness h;
  h.api.PutObject("carbonawarekarmadapolicies", SeedPolicy());
  auto controller = h.Controller();
  controller->RunOnce();
  EXPECT_EQ(Harness::Condition(h.Status(), "TargetNotFound"), "True NotFound");
  h.api.PutObject("propagationpolicies", NginxPropagation());
  h.clock.Advance(absl::Minutes(5));
  controller->RunOnce();
  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member1", "member2"])"));
  EXPECT_EQ(Harness::Condition(h.Status(), "TargetNotFound"), "False Found");
}

Json OwnPolicy(const std::string& spec) {
  Json policy = Json::parse(R"({"apiVersion": "carbonroute.io/v1alpha1",
    "kind": "CarbonPlacementPolicy", "metadata": {"name": "web", "namespace": "default"}})");
  policy["spec"] = Json::parse(spec);
  return policy;
}

TEST(KarmadaController, AClusterBeyondMaxRttIsNeverChosenAndItsStatusSaysTheRtt) {
  Harness h;
  h.intensity["ES"] = 5;  // the cleanest, 28 ms from Belgium
  h.api.PutObject("propagationpolicies", NginxPropagation());
  h.api.PutObject("carbonplacementpolicies", OwnPolicy(R"({
    "targetRef": {"kind": "PropagationPolicy", "name": "nginx-propagation"},
    "desiredClusters": 2, "origin": "member-be", "maxRttMs": 20,
    "clusters": [{"name": "member-be", "region": "europe-west1"},
                 {"name": "member-fr", "region": "europe-west9"},
                 {"name": "member-es", "region": "europe-southwest1"},
                 {"name": "member-de", "region": "europe-west3"}]})"));
  auto controller = h.Controller();
  for (int pass = 0; pass < 3; ++pass) {
    controller->RunOnce();
    EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member-fr", "member-be"])"));
    h.clock.Advance(absl::Minutes(5));
  }
  const Json status = h.Status("carbonplacementpolicies", "web");
  for (const Json& cluster : status["clusters"]) {
    if (cluster["name"] != "member-es") continue;
    EXPECT_EQ(cluster["isValid"], false);
    EXPECT_EQ(cluster["rttMs"], 28);
    EXPECT_THAT(cluster["reason"].get<std::string>(), HasSubstr("28"));
  }
  EXPECT_EQ(status["observedGeneration"], 1);
}

// Clusters given as {location: <cloud region>} (rank, window and the SDK API
// take regions where locations go): a region is a region for RTT too, so the
// limit from the origin region is checked, not failed as "no RTT".
TEST(KarmadaController, AClusterWhoseLocationIsARegionGetsThatRegionsRtt) {
  Harness h;
  h.intensity["ES"] = 5;  // the cleanest, 28 ms from Belgium: beyond the limit
  h.api.PutObject("propagationpolicies", NginxPropagation());
  h.api.PutObject("carbonplacementpolicies", OwnPolicy(R"({
    "targetRef": {"kind": "PropagationPolicy", "name": "nginx-propagation"},
    "desiredClusters": 1, "origin": "europe-west1", "maxRttMs": 20,
    "clusters": [{"name": "member-paris", "location": "europe-west9"},
                 {"name": "member-madrid", "location": "europe-southwest1"},
                 {"name": "member-frankfurt", "location": "europe-west3"}]})"));
  h.Controller()->RunOnce();
  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member-paris"])"));
  const Json status = h.Status("carbonplacementpolicies", "web");
  EXPECT_EQ(Harness::Condition(status, "Ready"), "True Placed");
  for (const Json& cluster : status["clusters"]) {
    if (cluster["name"] == "member-madrid") {
      EXPECT_EQ(cluster["isValid"], false);
      EXPECT_EQ(cluster["rttMs"], 28);
      EXPECT_THAT(cluster["reason"].get<std::string>(), Not(HasSubstr("no RTT")));
    }
    if (cluster["name"] == "member-paris") {
      EXPECT_EQ(cluster["rttMs"], 8);
    }
  }
}

TEST(KarmadaController, ToleranceAndMinStayHoldAPlacementThroughASmallChangeAndMoveOnALargeOne) {
  Harness h;
  h.intensity = {{"FR", 100}, {"ES", 120}};
  h.api.PutObject("propagationpolicies", NginxPropagation());
  h.api.PutObject("carbonplacementpolicies", OwnPolicy(R"({
    "targetRef": {"kind": "PropagationPolicy", "name": "nginx-propagation"},
    "desiredClusters": 1, "carbonToleranceGramsPerKwh": 20, "minStay": "1h",
    "clusters": [{"name": "member-fr", "location": "FR"}, {"name": "member-es", "location": "ES"}]})"));
  auto controller = h.Controller();
  controller->RunOnce();
  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member-fr"])"));
  h.intensity["ES"] = 30;  // much cleaner, but within minStay
  h.clock.Advance(absl::Minutes(30));
  controller->RunOnce();
  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member-fr"])"));
  h.intensity["ES"] = 85;  // after minStay, 15 below: within the tolerance
  h.clock.Advance(absl::Minutes(35));
  controller->RunOnce();
  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member-fr"])"));
  h.intensity["ES"] = 60;  // 40 below: moves
  h.clock.Advance(absl::Minutes(5));
  controller->RunOnce();
  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member-es"])"));
  EXPECT_THAT(h.api.events().back()["message"].get<std::string>(),
              HasSubstr("carbonToleranceGramsPerKwh 20, minStay 1h"));
  EXPECT_EQ(h.Calls("PATCH", kPolicyPath), 2);
}

TEST(KarmadaController, WeightsAreWrittenForADividedPolicy) {
  Harness h;
  h.intensity = {{"FR", 50}, {"ES", 100}};
  h.api.PutObject("propagationpolicies", NginxPropagation());
  h.api.PutObject("carbonplacementpolicies", OwnPolicy(R"({
    "targetRef": {"kind": "PropagationPolicy", "name": "nginx-propagation"},
    "desiredClusters": 2, "replicaWeights": true,
    "clusters": [{"name": "member-fr", "location": "FR"}, {"name": "member-es", "location": "ES"}]})"));
  auto controller = h.Controller();
  controller->RunOnce();
  const Json scheduling = h.Object("propagationpolicies", "default",
                                   "nginx-propagation")["spec"]["placement"]["replicaScheduling"];
  EXPECT_EQ(scheduling["replicaSchedulingType"], "Divided");
  EXPECT_EQ(scheduling["replicaDivisionPreference"], "Weighted");
  EXPECT_EQ(scheduling["weightPreference"]["staticWeightList"], Json::parse(R"([
    {"targetCluster": {"clusterNames": ["member-fr"]}, "weight": 100},
    {"targetCluster": {"clusterNames": ["member-es"]}, "weight": 50}])"));
  h.clock.Advance(absl::Minutes(5));
  controller->RunOnce();  // the same weights: no second write
  EXPECT_EQ(h.Calls("PATCH", kPolicyPath), 1);
}

TEST(KarmadaController, ClustersComeFromKarmadasClusterObjectsWhenThePolicyListsNone) {
  Harness h;
  h.api.PutObject("clusters", Json::parse(R"({"metadata": {"name": "member-fr",
      "labels": {"carbonroute.io/location": "FR"}}, "spec": {"region": "europe-west3"}})"));
  h.api.PutObject(
      "clusters",
      Json::parse(R"({"metadata": {"name": "member-be"}, "spec": {"region": "europe-west1"}})"));
  h.api.PutObject("clusters", Json::parse(R"({"metadata": {"name": "member-x"}, "spec": {}})"));
  h.api.PutObject("propagationpolicies", NginxPropagation());
  h.api.PutObject("carbonplacementpolicies", OwnPolicy(R"({
    "targetRef": {"kind": "PropagationPolicy", "name": "nginx-propagation"},
    "desiredClusters": 2})"));
  h.Controller()->RunOnce();
  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member-fr", "member-be"])"));
  const Json status = h.Status("carbonplacementpolicies", "web");
  EXPECT_EQ(status["clusters"][0]["location"], "FR");  // the label wins over the region
  EXPECT_EQ(status["clusters"][1]["location"], "BE");  // the region through the region map
  EXPECT_EQ(Harness::Condition(status, "DataMissing"), "True NoReading");
  EXPECT_THAT(status["conditions"][1]["message"].get<std::string>(),
              HasSubstr("member-x (no carbonroute.io/location label, no spec.region)"));
}

TEST(KarmadaController, OfTwoReplicasOnlyTheLeaseHolderActs) {
  Harness h;
  h.api.PutObject("propagationpolicies", NginxPropagation());
  h.api.PutObject("carbonawarekarmadapolicies", SeedPolicy());
  kube::LeaseElection a(
      {.namespace_name = "karmada-system", .name = "carbonroute-karmada", .identity = "replica-a"},
      h.kube);
  kube::LeaseElection b(
      {.namespace_name = "karmada-system", .name = "carbonroute-karmada", .identity = "replica-b"},
      h.kube);
  auto first = h.Controller(&a);
  prometheus::Registry other_registry;
  KarmadaMetrics other_metrics(other_registry);
  KarmadaController second(
      KarmadaControllerOptions{}, {h.kube, h.clock, &b},
      [&h](absl::Time now) { return h.Load(now); }, other_metrics);
  first->RunOnce();
  second.RunOnce();
  h.intensity["DE"] = 1;
  for (int step = 0; step < 30; ++step) {  // five minutes, renewing every 10 s
    h.clock.Advance(absl::Seconds(10));
    first->RunOnce();
    second.RunOnce();
  }
  EXPECT_EQ(h.Calls("PATCH", kPolicyPath), 2);
  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member3", "member1"])"));
  EXPECT_TRUE(second.healthy());  // not leading is not unhealthy
  const std::string others = testing::ScrapeMetricsPage(other_registry);
  EXPECT_THAT(others, HasSubstr("carbonroute_karmada_leader 0"));
  EXPECT_THAT(others, Not(HasSubstr("carbonroute_karmada_moves_total{")));
  EXPECT_THAT(h.Metrics(), HasSubstr("carbonroute_karmada_leader 1"));
  EXPECT_THAT(
      h.Metrics(),
      HasSubstr(
          R"(carbonroute_karmada_moves_total{kind="CarbonAwareKarmadaPolicy",namespace="default",policy="carbon-aware-nginx-policy"} 2)"));
}

TEST(KarmadaController, ADeletedPolicysGaugesGoSoNoAlertWaitsForIt) {
  Harness h;
  h.api.PutObject("propagationpolicies", NginxPropagation());
  h.api.PutObject("carbonawarekarmadapolicies", SeedPolicy());
  auto controller = h.Controller();
  controller->RunOnce();
  EXPECT_THAT(h.Metrics(), HasSubstr("carbonroute_karmada_last_reconcile_timestamp_seconds{"));
  h.api.Delete("carbonawarekarmadapolicies", "default", "carbon-aware-nginx-policy");
  h.clock.Advance(absl::Minutes(5));
  controller->RunOnce();
  const std::string metrics = h.Metrics();
  EXPECT_THAT(metrics, Not(HasSubstr("carbonroute_karmada_last_reconcile_timestamp_seconds{")));
  EXPECT_THAT(metrics, Not(HasSubstr("carbonroute_karmada_cluster_active{")));
  EXPECT_THAT(metrics, Not(HasSubstr("carbon_aware_karmada_operator_cluster_carbon_intensity{")));
  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member1", "member2"])"));  // the placement stays
}

TEST(KarmadaController, APolicyKindWhoseCrdIsNotInstalledIsNone) {
  Harness h;
  FakeBatchApi bare([&h] { return h.clock.Now(); });  // serves no custom resource
  kube::KubeClient kube(kube::KubeConnection{.server = "http://fake"}, bare);
  KarmadaController controller(
      KarmadaControllerOptions{}, {kube, h.clock}, [&h](absl::Time now) { return h.Load(now); },
      h.metrics);
  controller.RunOnce();
  EXPECT_TRUE(controller.healthy());
  EXPECT_THAT(h.log.text(), HasSubstr("CRD is not installed"));
}

// The ledger's tests: nginx, 3 replicas of 2 cores and 4 GB each: 3 × (2 × 2.12 + 4 × 0.392)
// = 17.424 W (ledger/power_model.h), 5,227.2 J (0.001452 kWh) in each 5-minute interval.
Json NginxDeployment() {
  return Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "nginx", "namespace": "default"},
    "spec": {"replicas": 3, "template": {"spec": {"containers": [
      {"name": "nginx", "resources": {"requests": {"cpu": "2", "memory": "4G"}}}]}}}})");
}

struct LedgerHarness : Harness {
  prometheus::Registry ledger_registry;
  ledger::Ledger ledger{ledger_registry};

  LedgerHarness() {
    api.ServeResource("apps/v1", "deployments", true);
    api.PutObject("deployments", NginxDeployment());
    api.PutObject("propagationpolicies", NginxPropagation());
    api.PutObject("carbonawarekarmadapolicies", SeedPolicy());
  }
  std::unique_ptr<KarmadaController> Controller(bool dry_run = false) {
    return std::make_unique<KarmadaController>(
        KarmadaControllerOptions{.dry_run = dry_run},
        controller_runtime::Wiring{kube, clock, nullptr, &events},
        [this](absl::Time now) { return Load(now); }, metrics, &ledger);
  }
  double Grams(const std::string& basis, const std::string& mode = "enforced") {
    return testing::CounterValue(ledger_registry, "carbonroute_ledger_emissions_grams_total",
                                 {{"controller", "karmada"},
                                  {"namespace", "default"},
                                  {"mode", mode},
                                  {"emissions_type", "average"},
                                  {"basis", basis}});
  }
};

TEST(KarmadaLedger, EachIntervalIsPricedWhereItRanAgainstEqualSharesOverEveryListedCluster) {
  LedgerHarness h;
  auto controller = h.Controller();
  auto template_reads = [&h] {
    const std::vector<testing::FakeApiCall> calls = h.api.calls();
    return std::count_if(calls.begin(), calls.end(), [](const testing::FakeApiCall& call) {
      return absl::StrContains(call.target, "/deployments/nginx");
    });
  };
  controller->RunOnce();  // places member1 (FR 56) and member2 (ES 120); opens the interval
  EXPECT_TRUE(std::isnan(h.Grams("chosen")));
  EXPECT_EQ(template_reads(), 0);  // nothing to price yet: the workload is not read
  h.clock.Advance(absl::Minutes(5));
  controller->RunOnce();
  EXPECT_EQ(template_reads(), 1);
  // Ran on FR and ES, half each: 0.001452 kWh × 88 = 0.127776 g; without carbonroute, a third
  // each on FR, ES and DE (380): 0.001452 × 185.333… = 0.269104 g.
  EXPECT_NEAR(h.Grams("chosen"), 0.127776, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual"), 0.269104, 1e-9);
  // France turns dirty (400): the interval just ended is priced at the readings that close it,
  // 0.001452 × (200 + 60) = 0.37752 g against 0.001452 × 300 = 0.4356 g.
  h.intensity["FR"] = 400;
  h.clock.Advance(absl::Minutes(5));
  controller->RunOnce();
  EXPECT_NEAR(h.Grams("chosen"), 0.127776 + 0.37752, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual"), 0.269104 + 0.4356, 1e-9);
  EXPECT_NEAR(testing::CounterValue(h.ledger_registry, "carbonroute_ledger_energy_joules_total",
                                    {{"energy_source", "model"}, {"mode", "enforced"}}),
              2 * 5227.2, 1e-6);
  EXPECT_EQ(testing::CounterValue(h.ledger_registry, "carbonroute_ledger_decisions_total",
                                  {{"outcome", "moved"}}),
            2);  // the first placement and the move away from France
  EXPECT_EQ(testing::CounterValue(h.ledger_registry, "carbonroute_ledger_decisions_total",
                                  {{"outcome", "kept"}}),
            1);
}

TEST(KarmadaLedger, AnIntervalWithoutReadingsOrWorkloadAddsNothingAndIsCounted) {
  LedgerHarness h;
  auto controller = h.Controller();
  controller->RunOnce();
  h.collectors_down = true;
  h.clock.Advance(absl::Minutes(5));
  controller->RunOnce();
  EXPECT_TRUE(std::isnan(h.Grams("chosen")));  // never a 0 standing in for a missing reading
  EXPECT_EQ(testing::CounterValue(h.ledger_registry, "carbonroute_ledger_intervals_skipped_total",
                                  {{"reason", "unknown_intensity"}}),
            1);
  h.collectors_down = false;
  h.api.Delete("deployments", "default", "nginx");
  h.clock.Advance(absl::Minutes(5));
  controller->RunOnce();
  EXPECT_EQ(testing::CounterValue(h.ledger_registry, "carbonroute_ledger_intervals_skipped_total",
                                  {{"reason", "unknown_energy"}}),
            1);
  EXPECT_THAT(h.log.text(), HasSubstr("the ledger cannot price its workload"));
  // Down for longer than three resyncs: not booked rather than guessed.
  h.api.PutObject("deployments", NginxDeployment());
  h.clock.Advance(absl::Minutes(16));
  controller->RunOnce();
  EXPECT_EQ(testing::CounterValue(h.ledger_registry, "carbonroute_ledger_intervals_skipped_total",
                                  {{"reason", "gap"}}),
            1);
  EXPECT_TRUE(std::isnan(h.Grams("chosen")));
}

TEST(KarmadaLedger, ADryRunWritesNothingButEventsAndBooksItsChoiceAgainstWhatRan) {
  LedgerHarness h;
  Json propagation = NginxPropagation();
  propagation["spec"]["placement"]["clusterAffinity"]["clusterNames"] = {"member3"};  // DE, 380
  h.api.PutObject("propagationpolicies", propagation);
  auto controller = h.Controller(/*dry_run=*/true);
  controller->RunOnce();
  h.clock.Advance(absl::Minutes(5));
  controller->RunOnce();
  EXPECT_EQ(h.ClusterNames(), Json::parse(R"(["member3"])"));  // as its owner left it
  for (const testing::FakeApiCall& call : h.api.calls()) {
    const bool lease_or_event = absl::StrContains(call.target, "/events");
    EXPECT_TRUE(call.method == "GET" || lease_or_event) << call.method << " " << call.target;
  }
  EXPECT_EQ(h.Status(), Json());                                           // no status written
  EXPECT_THAT(h.EventReasons(), ElementsAre("CarbonPlacementWouldMove"));  // once, not per pass
  // Shadow mode: what carbonroute would have chosen (FR and ES, 88 g/kWh) against what ran
  // (DE, 380 g/kWh): 0.001452 × 88 = 0.127776 g and 0.001452 × 380 = 0.55176 g.
  EXPECT_NEAR(h.Grams("chosen", "shadow"), 0.127776, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual", "shadow"), 0.55176, 1e-9);
  EXPECT_TRUE(std::isnan(h.Grams("chosen", "enforced")));
}

TEST(KarmadaLedger, DuplicatedReplicasAreCountedAsSkippedNotPriced) {
  LedgerHarness h;
  Json propagation = NginxPropagation();
  propagation["spec"]["placement"]["replicaScheduling"]["replicaSchedulingType"] = "Duplicated";
  h.api.PutObject("propagationpolicies", propagation);
  auto controller = h.Controller();
  controller->RunOnce();
  h.clock.Advance(absl::Minutes(5));
  controller->RunOnce();
  EXPECT_EQ(testing::CounterValue(h.ledger_registry, "carbonroute_ledger_intervals_skipped_total",
                                  {{"reason", "duplicated"}}),
            1);
  EXPECT_TRUE(std::isnan(h.Grams("chosen")));
}

TEST(KarmadaLedger, SharesFollowTheStaticWeightsElseAreEqual) {
  EXPECT_EQ(SharesOf({"a", "b"}, {}), (ClusterShares{{"a", 0.5}, {"b", 0.5}}));
  EXPECT_EQ(SharesOf({"a", "b"}, {{"a", 3}}), (ClusterShares{{"a", 0.75}, {"b", 0.25}}));
  EXPECT_TRUE(SharesOf({}, {}).empty());
}

}  // namespace
}  // namespace carbonroute::karmada
