#include "routing_controller/routing_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "exporter/metrics_page.h"
#include "placement/placement_model.h"
#include "routing/destination_rule_patch.h"
#include "routing/http_route_patch.h"
#include "test/testing/counter_value.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_clock.h"
#include "test/testing/metrics_scrape.h"

namespace carbonroute::routing {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

// Three regions as the shipped matrix has them (4, 7 and 10 ms apart), each its own grid.
const std::map<std::string, std::string> kRegions = {
    {"europe-west1", "BE"}, {"europe-west3", "DE"}, {"europe-west9", "FR"}};

Json Node(const std::string& name, const std::string& region) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"topology.kubernetes.io/region", region}}}}},
          {"status", {{"conditions", Json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

Json Rule(const std::string& name, const Json& traffic_policy) {
  return {
      {"apiVersion", "networking.istio.io/v1"},
      {"kind", "DestinationRule"},
      {"metadata", {{"name", name}, {"namespace", "shop"}}},
      {"spec", {{"host", "checkout.shop.svc.cluster.local"}, {"trafficPolicy", traffic_policy}}}};
}

const Json kOutlier = {{"outlierDetection", {{"consecutive5xxErrors", 5}}},
                       {"loadBalancer", {{"simple", "LEAST_REQUEST"}}}};

struct Harness {
  testing::FakeClock clock{kStart};
  testing::FakeBatchApi api{[this] { return clock.Now(); }};
  kube::KubeClient kube{kube::KubeConnection{.server = "http://fake"}, api};
  prometheus::Registry registry;
  RoutingMetrics metrics{registry};
  ledger::Ledger ledger{registry};
  kube::EventRecorder events{kube, "carbonroute-route", "replica-a"};
  std::map<std::string, double> intensity = {{"BE", 150}, {"DE", 380}, {"FR", 56}};
  bool collectors_down = false;

  Harness() {
    api.ServeResource("carbonroute.io/v1alpha1", "carbonroutingpolicies", true);
    api.ServeResource("networking.istio.io/v1", "destinationrules", true, false);
    api.ServeResource("discovery.k8s.io/v1", "endpointslices", true, false);
    api.ServeResource("v1", "nodes", false, false);
    Json endpoints = Json::array();
    for (const auto& [region, location] : kRegions) {
      for (int i = 0; i < 4; ++i) {
        const std::string node = absl::StrCat(region, "-", i);
        api.PutObject("nodes", Node(node, region));
        endpoints.push_back({{"addresses", {absl::StrCat("10.0.", endpoints.size(), ".1")}},
                             {"conditions", {{"ready", true}}},
                             {"nodeName", node},
                             {"targetRef", {{"kind", "Pod"}, {"name", "checkout-" + node}}}});
      }
    }
    // One not ready: not counted (the slice's 13th endpoint).
    endpoints.push_back({{"addresses", {"10.9.9.9"}},
                         {"conditions", {{"ready", false}}},
                         {"nodeName", "europe-west3-0"}});
    api.PutObject("endpointslices", {{"apiVersion", "discovery.k8s.io/v1"},
                                     {"kind", "EndpointSlice"},
                                     {"metadata",
                                      {{"name", "checkout-abc"},
                                       {"namespace", "shop"},
                                       {"labels", {{"kubernetes.io/service-name", "checkout"}}}}},
                                     {"addressType", "IPv4"},
                                     {"endpoints", endpoints}});
    api.PutObject("destinationrules", Rule("checkout", kOutlier));
    api.PutObject("carbonroutingpolicies", Policy({"checkout"}));
  }
  static Json Policy(const std::vector<std::string>& rules) {
    Json refs = Json::array();
    for (const std::string& rule : rules) {
      refs.push_back(
          {{"group", "networking.istio.io"}, {"kind", "DestinationRule"}, {"name", rule}});
    }
    return {{"apiVersion", "carbonroute.io/v1alpha1"},
            {"kind", "CarbonRoutingPolicy"},
            {"metadata", {{"name", "checkout"}, {"namespace", "shop"}, {"uid", "p1"}}},
            {"spec",
             {{"targetRefs", refs},
              {"maxRttMs", 30},
              {"carbonToleranceGramsPerKwh", 10},
              {"headroomPercent", 20}}}};
  }
  model_sources::LoadedModel Load(absl::Time now) {
    placement::PlacementFacts facts;
    facts.built_at = now;
    for (const auto& [region, location] : kRegions) facts.region_locations[region] = location;
    const std::map<std::pair<std::string, std::string>, int> ms = {
        {{"europe-west1", "europe-west9"}, 4},
        {{"europe-west1", "europe-west3"}, 7},
        {{"europe-west3", "europe-west9"}, 10}};
    for (const auto& [pair, rtt] : ms) {
      for (const auto& [from, to] : {pair, std::make_pair(pair.second, pair.first)}) {
        facts.rtt[from][to] = {
            .rtt = absl::Milliseconds(rtt), .method = RttMethod::kDeclared, .observed_at = now};
      }
    }
    if (!collectors_down) {
      for (const auto& [location, grams] : intensity) {
        auto& carbon = facts.carbon[location];
        carbon.grams_per_kwh = grams;
        carbon.valid_to = now + absl::Minutes(30);
        carbon.observed_at = now;
      }
    }
    return {.model = std::make_shared<placement::PlacementModel>(facts), .sources_read = 1};
  }
  std::unique_ptr<RoutingController> Controller(bool dry_run = false,
                                                RequestRateSource request_rates = nullptr,
                                                ledger::PodsMeter pods_meter = nullptr) {
    return std::make_unique<RoutingController>(
        controller_runtime::Wiring{kube, clock, nullptr, &events},
        RoutingControllerOptions{.resync = absl::Minutes(1),
                                 .dry_run = dry_run,
                                 .request_rates = std::move(request_rates),
                                 .pods_meter = std::move(pods_meter)},
        [this](absl::Time now) { return Load(now); }, metrics, &ledger);
  }
  Json Distribute(const std::string& rule) const {
    return api.Get("destinationrules", "shop", rule)
        .value("/spec/trafficPolicy/loadBalancer/localityLbSetting"_json_pointer, Json());
  }
  int Writes(const std::string& rule) const {
    int count = 0;
    for (const testing::FakeApiCall& call : api.calls()) {
      count +=
          call.method == "PATCH" && absl::StrContains(call.target, "/destinationrules/" + rule);
    }
    return count;
  }
  Json Condition(const std::string& type) const {
    const Json policy = api.Get("carbonroutingpolicies", "shop", "checkout");
    for (const Json& condition : policy["status"]["conditions"]) {
      if (condition["type"] == type) return condition;
    }
    return Json();
  }
  std::string Metrics() { return testing::ScrapeMetricsPage(registry); }
  // The policy declares 36 J a request; a client Pod, frontend-de, runs on a German Node.
  void DeclareJoulesWithAGermanClient() {
    Json policy = Policy({"checkout"});
    policy["spec"]["joulesPerRequest"] = 36;
    api.PutObject("carbonroutingpolicies", policy);
    api.AddPod("shop", "frontend-de", kStart, {}, {}, {{"app", "frontend"}});
    api.Update("pods", "shop", "frontend-de", {{"spec", {{"nodeName", "europe-west3-1"}}}});
  }

  // An HTTPRoute "web" with one backend Service per region (2 endpoints each, the Service
  // labelled with its region) and a backend of another kind, and the policy targeting it from a
  // Gateway in Germany.
  void AddHttpRoute() {
    api.ServeResource("gateway.networking.k8s.io/v1", "httproutes", true, false);
    api.ServeResource("v1", "services", true, false);
    Json refs = Json::array();
    for (const auto& [region, location] : kRegions) {
      const std::string name = absl::StrCat("web-", location);
      api.PutObject("services", {{"apiVersion", "v1"},
                                 {"kind", "Service"},
                                 {"metadata",
                                  {{"name", name},
                                   {"namespace", "shop"},
                                   {"labels", {{"topology.kubernetes.io/region", region}}}}}});
      Json endpoints = Json::array();
      for (int i = 0; i < 2; ++i) {
        endpoints.push_back({{"addresses", {absl::StrCat("10.1.", i, ".1")}},
                             {"nodeName", absl::StrCat(region, "-", i)}});
      }
      api.PutObject("endpointslices", {{"apiVersion", "discovery.k8s.io/v1"},
                                       {"kind", "EndpointSlice"},
                                       {"metadata",
                                        {{"name", name + "-x"},
                                         {"namespace", "shop"},
                                         {"labels", {{"kubernetes.io/service-name", name}}}}},
                                       {"addressType", "IPv4"},
                                       {"endpoints", endpoints}});
      refs.push_back({{"name", name}, {"port", 8080}});
    }
    refs.push_back(
        {{"group", "example.com"}, {"kind", "Bucket"}, {"name", "static"}});  // left alone
    api.PutObject(
        "httproutes",
        {{"apiVersion", "gateway.networking.k8s.io/v1"},
         {"kind", "HTTPRoute"},
         {"metadata", {{"name", "web"}, {"namespace", "shop"}}},
         {"spec",
          {{"parentRefs", {{{"name", "eu-gateway"}}}}, {"rules", {{{"backendRefs", refs}}}}}}});
    Json policy = Harness::Policy({});
    policy["spec"]["targetRefs"] = {
        {{"group", "gateway.networking.k8s.io"}, {"kind", "HTTPRoute"}, {"name", "web"}}};
    policy["spec"]["origins"] = {{{"locality", "europe-west3/*"}}};
    api.PutObject("carbonroutingpolicies", policy);
  }
  std::map<std::string, Json> RouteWeights() const {
    std::map<std::string, Json> out;
    const Json route = api.Get("httproutes", "shop", "web");
    for (const Json& ref : route["spec"]["rules"][0]["backendRefs"]) {
      out[ref["name"]] = ref.value("weight", Json());
    }
    return out;
  }
  int RouteWrites() const {
    int count = 0;
    for (const testing::FakeApiCall& call : api.calls()) {
      count += call.method == "PATCH" && absl::StrContains(call.target, "/httproutes/web");
    }
    return count;
  }
};

// The shipped example's numbers (docs/routing.md), now from the cluster: 4 ready endpoints per
// region on Nodes labelled with it.
const Json kExpected = Json::parse(R"([
  {"from":"europe-west1/*","to":{"europe-west1/*":100}},
  {"from":"europe-west3/*","to":{"europe-west3/*":60,"europe-west1/*":20,"europe-west9/*":20}},
  {"from":"europe-west9/*","to":{"europe-west9/*":100}}])");

TEST(RoutingController, WritesTheWeightsOnceAndReweightsWithinOneResync) {
  Harness h;
  auto controller = h.Controller();
  controller->RunOnce();
  Json setting = h.Distribute("checkout");
  EXPECT_EQ(setting["enabled"], true);
  EXPECT_EQ(setting["distribute"], kExpected) << setting.dump();
  // Every other field kept.
  EXPECT_EQ(h.api.Get("destinationrules", "shop",
                      "checkout")["spec"]["trafficPolicy"]["loadBalancer"]["simple"],
            "LEAST_REQUEST");
  EXPECT_EQ(h.Condition("Ready")["status"], "True");
  EXPECT_EQ(h.Writes("checkout"), 1);
  const std::vector<Json> events = h.api.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["reason"], "WeightsChanged");
  EXPECT_THAT(
      events[0]["message"].get<std::string>(),
      HasSubstr("DestinationRule shop/checkout: none ⇒ europe-west1/* → europe-west1/* 100"));
  EXPECT_THAT(h.Metrics(), HasSubstr("carbonroute_routing_weight_ratio{from=\"europe-west3/*\","
                                     "namespace=\"shop\",policy=\"checkout\",target="
                                     "\"DestinationRule/checkout\",to=\"europe-west9/*\"} 0.2"));
  // Germany's request: 0.6 × 380 + 0.2 × 150 + 0.2 × 56 = 269.2 against 380 kept local.
  EXPECT_THAT(h.Metrics(), HasSubstr("basis=\"weighted\",from=\"europe-west3/*\",namespace="
                                     "\"shop\",policy=\"checkout\",target=\"DestinationRule/"
                                     "checkout\"} 269.2"));

  // Nothing changed: an hour of resyncs writes nothing.
  for (int i = 0; i < 60; ++i) {
    h.clock.Advance(absl::Minutes(1));
    controller->RunOnce();
  }
  EXPECT_EQ(h.Writes("checkout"), 1);
  const int status_writes = [&h] {
    int count = 0;
    for (const testing::FakeApiCall& call : h.api.calls()) {
      count += absl::EndsWith(call.target, "/status");
    }
    return count;
  }();
  EXPECT_EQ(status_writes, 1);

  // France turns dirty (500): the next resync sends France's requests to Belgium and Germany.
  h.intensity["FR"] = 500;
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  EXPECT_EQ(h.Writes("checkout"), 2);
  setting = h.Distribute("checkout");
  EXPECT_EQ(setting["distribute"][2],
            Json::parse(R"({"from":"europe-west9/*","to":{"europe-west9/*":60,
                            "europe-west1/*":20,"europe-west3/*":20}})"))
      << setting.dump();
}

TEST(RoutingController, RulesItMustNotWriteGetTheirConditionsAndNoWrite) {
  Harness h;
  h.api.PutObject(
      "destinationrules",
      Rule("with-failover",
           {{"outlierDetection", {{"interval", "10s"}}},
            {"loadBalancer",
             {{"localityLbSetting",
               {{"failover", {{{"from", "europe-west1"}, {"to", "europe-west3"}}}}}}}}}));
  h.api.PutObject("destinationrules",
                  Rule("no-outlier", {{"loadBalancer", {{"simple", "RANDOM"}}}}));
  h.api.PutObject("carbonroutingpolicies",
                  Harness::Policy({"checkout", "with-failover", "no-outlier", "gone"}));
  auto controller = h.Controller();
  controller->RunOnce();
  EXPECT_EQ(h.Writes("with-failover"), 0);
  EXPECT_EQ(h.Writes("no-outlier"), 0);
  EXPECT_EQ(h.Writes("checkout"), 1);
  EXPECT_EQ(h.Condition("FailoverConfigured")["status"], "True");
  EXPECT_THAT(h.Condition("FailoverConfigured")["message"].get<std::string>(),
              HasSubstr("DestinationRule shop/with-failover"));
  EXPECT_EQ(h.Condition("OutlierDetectionMissing")["status"], "True");
  EXPECT_EQ(h.Condition("TargetNotFound")["status"], "True");
  EXPECT_THAT(h.Condition("TargetNotFound")["message"].get<std::string>(),
              HasSubstr("DestinationRule shop/gone: not found"));
  EXPECT_EQ(h.Condition("Ready")["status"], "False");
  EXPECT_EQ(h.Condition("Ready")["reason"], "FailoverConfigured");
}

// Every collector down: the weights stay as written, a condition says why.
TEST(RoutingController, WithoutReadingsTheWeightsStay) {
  Harness h;
  auto controller = h.Controller();
  controller->RunOnce();
  h.collectors_down = true;
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  EXPECT_EQ(h.Writes("checkout"), 1);
  EXPECT_EQ(h.Distribute("checkout")["distribute"], kExpected);
  EXPECT_EQ(h.Condition("DataMissing")["status"], "True");
  EXPECT_THAT(h.Condition("DataMissing")["message"].get<std::string>(),
              HasSubstr("no destination has a current reading"));
  EXPECT_THAT(h.Metrics(), HasSubstr("carbonroute_routing_writes_total{namespace=\"shop\","
                                     "policy=\"checkout\",result=\"data_missing\"} 1"));
}

// A deleted policy leaves each rule it wrote as it found it: the finalizer it added waits for the
// rule's localityLbSetting to be put back (kept in an annotation at the first write).
TEST(RoutingController, DeletingThePolicyRestoresTheRule) {
  Harness h;
  Json rule = Rule("checkout", kOutlier);
  rule["spec"]["trafficPolicy"]["loadBalancer"]["localityLbSetting"] = {{"enabled", true}};
  h.api.PutObject("destinationrules", rule);
  auto controller = h.Controller();
  controller->RunOnce();
  Json written = h.api.Get("destinationrules", "shop", "checkout");
  EXPECT_EQ(written["metadata"]["annotations"][kOriginalSettingAnnotation], R"({"enabled":true})");
  EXPECT_EQ(h.Distribute("checkout")["distribute"], kExpected);
  Json policy = h.api.Get("carbonroutingpolicies", "shop", "checkout");
  EXPECT_EQ(policy["metadata"]["finalizers"], Json::array({kRestoreFinalizer}));

  // kubectl delete: the API server sets deletionTimestamp and keeps the object for its finalizer.
  policy["metadata"]["deletionTimestamp"] = "2027-01-15T08:05:00Z";
  h.api.PutObject("carbonroutingpolicies", policy);
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  const Json restored = h.api.Get("destinationrules", "shop", "checkout");
  EXPECT_EQ(restored["spec"]["trafficPolicy"]["loadBalancer"],
            Json::parse(R"({"simple":"LEAST_REQUEST","localityLbSetting":{"enabled":true}})"))
      << restored.dump();
  EXPECT_FALSE(restored["metadata"]
                   .value("annotations", Json::object())
                   .contains(kOriginalSettingAnnotation));
  EXPECT_EQ(h.api.Get("carbonroutingpolicies", "shop", "checkout")["metadata"]["finalizers"],
            Json::array());
}

// An HTTPRoute with one backend Service per region, its Gateway in Germany (spec.origins): the
// backends' weights follow the Gateway's row. France (56) is within 10 ms: it takes everything.
TEST(RoutingController, AnHttpRoutesBackendWeightsFollowItsGatewaysRow) {
  Harness h;
  h.AddHttpRoute();
  auto controller = h.Controller();
  controller->RunOnce();
  auto weights = [&h] { return h.RouteWeights(); };
  EXPECT_EQ(weights(), (std::map<std::string, Json>{
                           {"web-BE", 0}, {"web-DE", 0}, {"web-FR", 100}, {"static", nullptr}}));
  EXPECT_EQ(h.Condition("Ready")["status"], "True");
  // France turns dirty: Belgium (150, 7 ms) is the cleanest within reach.
  h.intensity["FR"] = 500;
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  EXPECT_EQ(weights(), (std::map<std::string, Json>{
                           {"web-BE", 100}, {"web-DE", 0}, {"web-FR", 0}, {"static", nullptr}}));
  EXPECT_EQ(h.RouteWrites(), 2);
}

// An HTTPRoute's weights do not flap (the policy's tolerance, 10 g/kWh, as for a rule's rows), are
// booked in the ledger against the weights its owner set, and come back when the policy goes.
TEST(RoutingController, AnHttpRoutesWeightsStayWithinTheToleranceAndComeBackWithThePolicy) {
  Harness h;
  h.AddHttpRoute();
  Json policy = h.api.Get("carbonroutingpolicies", "shop", "checkout");
  policy["spec"]["joulesPerRequest"] = 36;
  h.api.PutObject("carbonroutingpolicies", policy);
  auto controller = h.Controller(false, [](const ServiceRef& service) {
    // The Gateway's Pod sends 10 requests/s to the route, all to France once weighted.
    ClientRates rates;
    if (service.name == "web-FR") rates.clients = {{"gateway", "eu-gateway-0", 10}};
    return absl::StatusOr<ClientRates>(rates);
  });
  controller->RunOnce();
  const std::map<std::string, Json> france = {
      {"web-BE", 0}, {"web-DE", 0}, {"web-FR", 100}, {"static", nullptr}};
  EXPECT_EQ(h.RouteWeights(), france);
  const Json written = h.api.Get("httproutes", "shop", "web");
  EXPECT_EQ(written["metadata"]["annotations"][kRoutedByAnnotation], "shop/checkout");
  EXPECT_THAT(written["metadata"]["annotations"][kOriginalWeightsAnnotation].get<std::string>(),
              HasSubstr(R"("name":"web-BE","namespace":"shop","rule":0,"weight":1)"));

  // A minute of 10 requests/s: 0.006 kWh at France's 56 (0.336 g) against the owner's weights,
  // 1 each: (150 + 380 + 56) / 3 = 195.33 g/kWh (1.172 g).
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  auto grams = [&h](const std::string& basis) {
    return testing::CounterValue(h.registry, "carbonroute_ledger_emissions_grams_total",
                                 {{"controller", "route"}, {"basis", basis}});
  };
  EXPECT_NEAR(grams("chosen"), 0.006 * 56, 1e-9);
  EXPECT_NEAR(grams("counterfactual"), 0.006 * (150 + 380 + 56) / 3.0, 1e-9);

  // Belgium turns cleaner than France by 6 g/kWh (and is nearer): within the tolerance, so the
  // route keeps France.
  h.intensity["BE"] = 50;
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  EXPECT_EQ(h.RouteWeights(), france);
  EXPECT_EQ(h.RouteWrites(), 1);

  // Deleted: the weights its owner set come back (the backend without one gets 1, its default),
  // and the annotations go.
  policy = h.api.Get("carbonroutingpolicies", "shop", "checkout");
  policy["metadata"]["deletionTimestamp"] = "2027-01-15T08:05:00Z";
  h.api.PutObject("carbonroutingpolicies", policy);
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  EXPECT_EQ(h.RouteWeights(),
            (std::map<std::string, Json>{
                {"web-BE", 1}, {"web-DE", 1}, {"web-FR", 1}, {"static", nullptr}}));
  const Json restored = h.api.Get("httproutes", "shop", "web");
  EXPECT_FALSE(restored["metadata"]["annotations"].contains(kOriginalWeightsAnnotation))
      << restored.dump();
  EXPECT_FALSE(restored["metadata"]["annotations"].contains(kRoutedByAnnotation));
  EXPECT_EQ(h.api.Get("carbonroutingpolicies", "shop", "checkout")["metadata"]["finalizers"],
            Json::array());
}

// A policy that stops targeting a rule puts it back as it found it, and weights its new target.
TEST(RoutingController, ARuleNoLongerTargetedIsRestored) {
  Harness h;
  h.api.PutObject("destinationrules", Rule("second", kOutlier));
  auto controller = h.Controller();
  controller->RunOnce();
  EXPECT_EQ(h.Distribute("checkout")["distribute"], kExpected);
  EXPECT_EQ(h.api.Get("destinationrules", "shop",
                      "checkout")["metadata"]["annotations"][kRoutedByAnnotation],
            "shop/checkout");
  h.api.PutObject("carbonroutingpolicies", Harness::Policy({"second"}));
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  const Json restored = h.api.Get("destinationrules", "shop", "checkout");
  EXPECT_FALSE(restored["spec"]["trafficPolicy"]["loadBalancer"].contains("localityLbSetting"))
      << restored.dump();
  EXPECT_EQ(restored["spec"]["trafficPolicy"]["loadBalancer"]["simple"], "LEAST_REQUEST");
  EXPECT_FALSE(restored["metadata"]["annotations"].contains(kRoutedByAnnotation));
  EXPECT_EQ(h.Distribute("second")["distribute"], kExpected);
  // Stable: the next passes write neither.
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  EXPECT_EQ(h.Writes("checkout"), 2);  // the weights, then their removal
  EXPECT_EQ(h.Writes("second"), 1);
}

// With --prometheus the demand is what Istio measured: here only German clients (10 requests/s
// from a Pod on a German Node; 1/s from a Pod that is gone, left out). All 12 endpoints' worth of
// demand from Germany: France and Belgium take their capacity (4 × 1.2 = 4.8 each: 40 %), Germany
// the rest (20 %), where by endpoints Germany kept 60 %.
TEST(RoutingController, MeasuredRequestsAreTheDemandAndTheLedgerBooksThem) {
  Harness h;
  h.DeclareJoulesWithAGermanClient();
  int queries = 0;
  auto controller = h.Controller(false, [&queries](const ServiceRef& service) {
    ++queries;
    EXPECT_EQ(service.name, "checkout");
    return absl::StatusOr<ClientRates>(
        ClientRates{.clients = {{"shop", "frontend-de", 10}, {"shop", "frontend-gone", 1}}});
  });
  controller->RunOnce();
  EXPECT_EQ(queries, 1);
  EXPECT_EQ(h.Distribute("checkout")["distribute"],
            Json::parse(R"([{"from":"europe-west3/*","to":{"europe-west9/*":40,
                              "europe-west1/*":40,"europe-west3/*":20}}])"))
      << h.Distribute("checkout").dump();
  // A minute later the interval is booked: 600 requests × 36 J = 21,600 J = 0.006 kWh, under the
  // written weights 0.4 × 56 + 0.4 × 150 + 0.2 × 380 = 158.4 g/kWh (0.9504 g) against 100 % local,
  // 380 (2.28 g): route_ledger_test's hand computation, from the cluster.
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  EXPECT_EQ(h.Writes("checkout"), 1);
  auto grams = [&h](const std::string& basis) {
    return testing::CounterValue(
        h.registry, "carbonroute_ledger_emissions_grams_total",
        {{"controller", "route"}, {"basis", basis}, {"mode", "enforced"}, {"namespace", "shop"}});
  };
  EXPECT_NEAR(grams("chosen"), 0.9504, 1e-9);
  EXPECT_NEAR(grams("counterfactual"), 2.28, 1e-9);
  EXPECT_DOUBLE_EQ(testing::CounterValue(h.registry, "carbonroute_ledger_energy_joules_total",
                                         {{"controller", "route"}, {"energy_source", "declared"}}),
                   21'600);
  // Prometheus down: demand from the endpoints again (Belgium and France are origins again and
  // keep their own), and the interval is skipped, not booked as zero.
  controller = h.Controller(false, [](const ServiceRef&) -> absl::StatusOr<ClientRates> {
    return absl::UnavailableError("connection refused");
  });
  controller->RunOnce();
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  EXPECT_EQ(h.Distribute("checkout")["distribute"].size(), 3u) << h.Distribute("checkout").dump();
  EXPECT_THAT(h.Metrics(), HasSubstr("carbonroute_routing_errors_total{operation=\"requests\"} 2"));
  EXPECT_DOUBLE_EQ(testing::CounterValue(h.registry, "carbonroute_ledger_intervals_skipped_total",
                                         {{"controller", "route"}, {"reason", "unknown_energy"}}),
                   1);
  EXPECT_NEAR(grams("chosen"), 0.9504, 1e-9);
}

// The same minute without joulesPerRequest, with route --prometheus: Kepler measured 21,600 J of
// the Service's 12 ready endpoint Pods in it (the one not ready is not asked for), all of it
// German clients' requests: the same 0.9504 g against 2.28 g, energy_source="kepler".
TEST(RoutingController, WithoutJoulesPerRequestThePodsMeasuredEnergyIsBooked) {
  Harness h;
  h.DeclareJoulesWithAGermanClient();
  Json policy = h.Policy({"checkout"});  // no joulesPerRequest
  h.api.PutObject("carbonroutingpolicies", policy);
  std::string asked;
  auto controller = h.Controller(
      false,
      [](const ServiceRef&) {
        return absl::StatusOr<ClientRates>(ClientRates{.clients = {{"shop", "frontend-de", 10}}});
      },
      [&asked](const std::string& namespace_name, const std::string& pods, absl::Time from,
               absl::Time to) -> absl::StatusOr<std::vector<ledger::PodEnergy>> {
        asked = absl::StrCat(namespace_name, " ", pods, " ", absl::ToInt64Seconds(to - from), "s");
        return std::vector<ledger::PodEnergy>{{21'600, ledger::EnergySource::kKepler}};
      });
  controller->RunOnce();
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  EXPECT_EQ(asked,
            "shop checkout-europe-west1-0|checkout-europe-west1-1|checkout-europe-west1-2|"
            "checkout-europe-west1-3|checkout-europe-west3-0|checkout-europe-west3-1|"
            "checkout-europe-west3-2|checkout-europe-west3-3|checkout-europe-west9-0|"
            "checkout-europe-west9-1|checkout-europe-west9-2|checkout-europe-west9-3 60s");
  EXPECT_NEAR(testing::CounterValue(h.registry, "carbonroute_ledger_emissions_grams_total",
                                    {{"controller", "route"}, {"basis", "chosen"}}),
              0.9504, 1e-9);
  EXPECT_NEAR(testing::CounterValue(h.registry, "carbonroute_ledger_emissions_grams_total",
                                    {{"controller", "route"}, {"basis", "counterfactual"}}),
              2.28, 1e-9);
  EXPECT_DOUBLE_EQ(testing::CounterValue(h.registry, "carbonroute_ledger_energy_joules_total",
                                         {{"controller", "route"}, {"energy_source", "kepler"}}),
                   21'600);
}

// In a dry run the ledger books what the weights it would have written would have saved
// against what the rule held (here Istio's default: every origin local).
TEST(RoutingController, ADryRunBooksItsWeightsAsShadow) {
  Harness h;
  h.DeclareJoulesWithAGermanClient();
  auto controller = h.Controller(true, [](const ServiceRef&) {
    return absl::StatusOr<ClientRates>(ClientRates{.clients = {{"shop", "frontend-de", 10}}});
  });
  controller->RunOnce();
  h.clock.Advance(absl::Minutes(1));
  controller->RunOnce();
  EXPECT_EQ(h.Writes("checkout"), 0);
  EXPECT_NEAR(
      testing::CounterValue(h.registry, "carbonroute_ledger_emissions_grams_total",
                            {{"controller", "route"}, {"basis", "chosen"}, {"mode", "shadow"}}),
      0.9504, 1e-9);
  EXPECT_NEAR(testing::CounterValue(
                  h.registry, "carbonroute_ledger_emissions_grams_total",
                  {{"controller", "route"}, {"basis", "counterfactual"}, {"mode", "shadow"}}),
              2.28, 1e-9);
}

TEST(RoutingController, ADryRunWritesNothingButEvents) {
  Harness h;
  auto controller = h.Controller(/*dry_run=*/true);
  controller->RunOnce();
  for (const testing::FakeApiCall& call : h.api.calls()) {
    EXPECT_TRUE(call.method == "GET" || absl::StrContains(call.target, "/events"))
        << call.method << " " << call.target;
  }
  ASSERT_EQ(h.api.events().size(), 1u);
  EXPECT_EQ(h.api.events()[0]["reason"], "WouldChangeWeights");
}

}  // namespace
}  // namespace carbonroute::routing
