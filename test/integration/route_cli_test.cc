// Integration test: `scheduler-lite route --policy` as a user runs it, from a
// directory outside the tree, against a real collector (static provider:
// Belgium 150, Germany 380, France 56 gCO2eq/kWh) and the shipped
// inter-region matrix: the shipped three-region example's weights by hand, the
// merge patch applied to the DestinationRule keeping every other field, and
// the mistakes a careless user makes, each with its message and exit code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/data_files.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/shell.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

const std::string kExample =
    absl::StrCat(CARBONROUTE_SOURCE_DIR,
                 "/deploy/kubernetes/routing/examples/three-region-destination-rule.yaml");
const std::string kRouteExample = absl::StrCat(
    CARBONROUTE_SOURCE_DIR, "/deploy/kubernetes/routing/examples/per-region-httproute.yaml");

class RouteCli : public ::testing::Test {
 protected:
  void SetUp() override {
    collector_ = testing::StartCollector(dir_.path(), absl::StrCat(R"yaml(
listen_address: 127.0.0.1:0
database: )yaml",
                                                                   dir_.path(), R"yaml(/cache.sqlite
node: {name: n1, location: DE}
providers: [{type: static, values: {BE: 150, DE: 380, FR: 56}}]
)yaml"));
    ASSERT_GT(collector_.port, 0) << collector_.process->Log();
  }
  testing::ShellRun Route(const std::string& policy, const std::string& extra = "") {
    return testing::Shell(absl::StrCat(
        "cd ", dir_.path(), " && ", CARBONROUTE_SCHEDULER_LITE_BINARY, " route --policy ", policy,
        " --metrics http://127.0.0.1:", collector_.port, "/metrics --data-dir ",
        CARBONROUTE_SOURCE_DIR, "/data ", extra, " 2>", dir_.path(), "/err.txt"));
  }
  std::string Err() { return *ReadFileToString(dir_.path() + "/err.txt", "stderr"); }
  // The example with `from` replaced by `to`, written to the test's directory.
  std::string ExampleWith(const std::string& from, const std::string& to) {
    std::string path = dir_.path() + "/policy.yaml";
    std::ofstream(path) << absl::StrReplaceAll(*ReadFileToString(kExample, "example"),
                                               {{from, to}});
    return path;
  }

  testing::ScopedTempDir dir_;  // route_cli
  testing::CollectorProcess collector_;
};

// By hand, in 1/10,000 of the traffic: 4 endpoints each, so each region's demand is 3,333 units
// and each destination's room 4 × 1.2 / 12 = 4,000. Within 30 ms everything reaches everything
// (4–10 ms). France (56) is the cleanest; with the 10 g tolerance it costs 66 for all, Belgium 150,
// Germany 380. Belgium and France keep their own traffic (no RTT at home; trading would only add
// some), which leaves 667 units of room in each: Germany sends them its 1,334 cleanest units,
// 20 % each, and keeps 60 %.
TEST_F(RouteCli, TheShippedThreeRegionExampleByHand) {
  const testing::ShellRun run = Route(kExample, "--format json");
  ASSERT_EQ(run.exit_code, 0) << run.output << Err();
  const Json patch = Json::parse(run.output);
  const Json expected = Json::parse(R"({"spec":{"trafficPolicy":{"loadBalancer":{
      "localityLbSetting":{"enabled":true,"distribute":[
        {"from":"europe-west1/*","to":{"europe-west1/*":100}},
        {"from":"europe-west3/*","to":{"europe-west3/*":60,"europe-west1/*":20,"europe-west9/*":20}},
        {"from":"europe-west9/*","to":{"europe-west9/*":100}}]}}}}})");
  EXPECT_EQ(patch, expected) << patch.dump(2);

  // Merged into the example's DestinationRule, every other field is kept.
  Json rule = Json::parse(R"({"apiVersion":"networking.istio.io/v1","kind":"DestinationRule",
      "metadata":{"name":"checkout","namespace":"shop"},"spec":{
      "host":"checkout.shop.svc.cluster.local","trafficPolicy":{
      "loadBalancer":{"simple":"LEAST_REQUEST"},"outlierDetection":{"consecutive5xxErrors":5,
      "interval":"10s","baseEjectionTime":"30s"}}}})");
  rule.merge_patch(patch);
  EXPECT_EQ(rule["spec"]["trafficPolicy"]["loadBalancer"]["simple"], "LEAST_REQUEST");
  EXPECT_TRUE(rule["spec"]["trafficPolicy"].contains("outlierDetection"));
  EXPECT_EQ(rule["spec"]["host"], "checkout.shop.svc.cluster.local");
  // What it writes is what the API server takes: Istio's CRD schema (types only; Istio's own
  // rules for distribute are the project's checker's, routing/istio_distribute.h).
  const std::string modules = testing::NpmTools("route-cli");
  ASSERT_FALSE(modules.empty()) << "npm tools could not be installed (scripts/lib/npm_tools.sh)";
  std::ofstream(dir_.path() + "/patched.json") << rule.dump();
  const std::string validate =
      absl::StrCat("ln -sfn ", modules, " ", dir_.path(), "/node_modules && cp ",
                   CARBONROUTE_SOURCE_DIR, "/test/routing/validate_mesh_objects.mjs ", dir_.path(),
                   "/ && node ", dir_.path(), "/validate_mesh_objects.mjs ");
  const testing::ShellRun valid =
      testing::Shell(absl::StrCat(validate, dir_.path(), "/patched.json 2>&1"));
  EXPECT_EQ(valid.exit_code, 0) << valid.output;
  // ...and the schema catches a wrong type, so the check above can fail.
  rule["spec"]["trafficPolicy"]["loadBalancer"]["localityLbSetting"]["enabled"] = "yes";
  std::ofstream(dir_.path() + "/wrong.json") << rule.dump();
  const testing::ShellRun wrong =
      testing::Shell(absl::StrCat(validate, dir_.path(), "/wrong.json 2>&1"));
  EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
  EXPECT_THAT(wrong.output, HasSubstr("enabled must be boolean"));

  // For people: each origin's rows with the intensity, the RTT and the reason.
  const testing::ShellRun table = Route(kExample);
  ASSERT_EQ(table.exit_code, 0) << table.output << Err();
  EXPECT_THAT(table.output, HasSubstr("CarbonRoutingPolicy shop/checkout → DestinationRule "
                                      "shop/checkout"));
  EXPECT_THAT(table.output, ::testing::ContainsRegex(
                                "europe-west3/\\* +europe-west9/\\* +20.0% +20 +56.0 +10 ms"));
  EXPECT_THAT(table.output, HasSubstr("\"europe-west3/*\": 60"));
}

TEST_F(RouteCli, RulesItMustNotWriteAreRefusedWithTheReason) {
  testing::ShellRun run =
      Route(ExampleWith("    outlierDetection:              # required: health "
                        "overrides carbon\n      consecutive5xxErrors: 5\n"
                        "      interval: 10s\n      baseEjectionTime: 30s\n",
                        ""));
  EXPECT_EQ(run.exit_code, 3) << run.output << Err();
  EXPECT_THAT(Err(), HasSubstr("OutlierDetectionMissing"));
  run = Route(ExampleWith("      simple: LEAST_REQUEST",
                          "      localityLbSetting: {failover: [{from: us-east1, to: us-west1}]}"));
  EXPECT_EQ(run.exit_code, 3) << run.output << Err();
  EXPECT_THAT(Err(), HasSubstr("FailoverConfigured"));
  EXPECT_THAT(run.output, Not(HasSubstr("distribute")));
}

TEST_F(RouteCli, MistakesExit2NamingTheFieldAndTheValue) {
  EXPECT_EQ(Route(dir_.path() + "/nope.yaml").exit_code, 2);
  EXPECT_THAT(Err(), HasSubstr("nope.yaml"));
  EXPECT_EQ(Route(ExampleWith("maxRttMs: 30", "maxRttMs: fast")).exit_code, 2);
  EXPECT_THAT(Err(), HasSubstr("spec.maxRttMs: expected a number"));
  EXPECT_EQ(Route(ExampleWith("minStay: 10m", "minStay: soon")).exit_code, 2);
  EXPECT_THAT(Err(),
              HasSubstr("spec.minStay: expected a duration such as 10m or 1h, got \"soon\""));
  EXPECT_EQ(
      Route(ExampleWith("kind: DestinationRule, name", "kind: DestinatonRule, name")).exit_code, 2);
  EXPECT_THAT(Err(), HasSubstr("spec.targetRefs[0]"));
  EXPECT_THAT(Err(), HasSubstr("\"DestinatonRule\""));
  EXPECT_EQ(
      Route(ExampleWith("kind: CarbonRoutingPolicy", "kind: CarbonRoutingPolicies")).exit_code, 2);
  EXPECT_THAT(Err(), HasSubstr("no document of kind CarbonRoutingPolicy"));
  EXPECT_EQ(Route(ExampleWith("maxRttMs: 30", "maxRttMs: 30: 40")).exit_code, 2);
  EXPECT_THAT(Err(), HasSubstr("not YAML"));
  // A field the CRD does not have is refused, as kubectl refuses it, not planned without: with
  // `maxRtt: 5` ignored, Germany's traffic would go 8–10 ms away that maxRttMs: 5 keeps local.
  EXPECT_EQ(Route(ExampleWith("maxRttMs: 30", "maxRtt: 5")).exit_code, 2);
  EXPECT_THAT(Err(), HasSubstr("spec.maxRtt: unknown field (did you mean maxRttMs?)"));
  EXPECT_EQ(Route(ExampleWith("capacity: 4}    # Germany", "capcity: 4}    # Germany")).exit_code,
            2);
  EXPECT_THAT(Err(),
              HasSubstr("spec.localities[1].capcity: unknown field (did you mean capacity?)"));
  // A locality whose region no table knows would never have a reading: refused, the nearest named.
  EXPECT_EQ(Route(ExampleWith("europe-west9/*", "europe-wst9/*")).exit_code, 2);
  EXPECT_THAT(Err(), HasSubstr("spec.localities[2].locality: \"europe-wst9/*\": the region table "
                               "has no region europe-wst9 (did you mean europe-west9?)"));
  EXPECT_EQ(Route(kExample, "--format xml").exit_code, 2);
  // The two modes, mixed up.
  EXPECT_EQ(Route(kExample, "--controller").exit_code, 2);
  EXPECT_THAT(Err(), HasSubstr("--controller: reads its policies from the cluster: drop --policy"));
  EXPECT_EQ(Route(kExample, "--dry-run").exit_code, 2);
  EXPECT_THAT(Err(), HasSubstr("--dry-run: is for --controller"));
  // --resync means nothing to a one-shot plan, and `5` (no unit) would be misread by anyone.
  EXPECT_EQ(Route(kExample, "--resync 5").exit_code, 2);
  EXPECT_THAT(Err(), HasSubstr("--resync: is for --controller (the one-shot mode plans once)"));
  const testing::ShellRun bare = testing::Shell(
      absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY, " route --locality-level zone 2>&1"));
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_THAT(bare.output,
              HasSubstr("--policy: is required for a one-shot plan (or give --controller)"));
  EXPECT_EQ(Route(kExample, "--controller --resync soon").exit_code, 2);
}

// No destination the collectors know: nothing is written, and the message says which lack data.
TEST_F(RouteCli, NoReadingNoPatch) {
  const std::string only_india = dir_.path() + "/india.yaml";
  std::ofstream(only_india) << R"(apiVersion: carbonroute.io/v1alpha1
kind: CarbonRoutingPolicy
metadata: {name: checkout, namespace: shop}
spec:
  targetRefs: [{group: networking.istio.io, kind: DestinationRule, name: checkout}]
  localities: [{locality: asia-south1/*, capacity: 2}, {locality: asia-south2/*, capacity: 2}]
)";
  const testing::ShellRun run = Route(only_india, "--format json");
  EXPECT_EQ(run.exit_code, 3) << run.output << Err();
  EXPECT_EQ(run.output, "");
  EXPECT_THAT(Err(),
              HasSubstr("no destination has a current reading (asia-south1/*, asia-south2/*)"));
}

// The shipped HTTPRoute example offline: the Gateway in Germany (demand 6 endpoints' worth), one
// backend per region (each Service labelled with it, 1 endpoint's worth, 1.2 with the headroom),
// within 20 ms everything reaches everything. Each backend takes its 1.2; the 2.4 left over goes
// where exceeding costs least, France (56): France 3.6 of 6 = 60 %, Belgium and Germany 20 % each.
TEST_F(RouteCli, TheShippedHttpRouteExampleOffline) {
  const testing::ShellRun run = Route(kRouteExample, "--format json");
  ASSERT_EQ(run.exit_code, 0) << run.output << Err();
  const Json patch = Json::parse(run.output);
  Json route = Json::parse(R"({"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute",
      "metadata":{"name":"storefront","namespace":"shop"},"spec":{
      "parentRefs":[{"name":"eu-gateway","namespace":"gateways"}],"rules":[{
      "matches":[{"path":{"type":"PathPrefix","value":"/"}}],"backendRefs":[
      {"name":"storefront-belgium","port":8080,"weight":1},
      {"name":"storefront-germany","port":8080,"weight":1},
      {"name":"storefront-france","port":8080,"weight":1}]}]}})");
  route = route.patch(patch);  // its `test`s pass: the names are where the patch expects them
  std::map<std::string, int> weights;
  for (const Json& ref : route["spec"]["rules"][0]["backendRefs"])
    weights[ref["name"]] = ref["weight"];
  EXPECT_EQ(weights,
            (std::map<std::string, int>{
                {"storefront-belgium", 20}, {"storefront-germany", 20}, {"storefront-france", 60}}))
      << patch.dump();
  // What it writes is what the API server takes (the Gateway API's schema).
  const std::string modules = testing::NpmTools("route-cli");
  ASSERT_FALSE(modules.empty()) << "npm tools could not be installed (scripts/lib/npm_tools.sh)";
  std::ofstream(dir_.path() + "/route.json") << route.dump();
  const testing::ShellRun valid = testing::Shell(absl::StrCat(
      "ln -sfn ", modules, " ", dir_.path(), "/node_modules && cp ", CARBONROUTE_SOURCE_DIR,
      "/test/routing/validate_mesh_objects.mjs ", dir_.path(), "/ && node ", dir_.path(),
      "/validate_mesh_objects.mjs ", dir_.path(), "/route.json 2>&1"));
  EXPECT_EQ(valid.exit_code, 0) << valid.output;

  // For people: the Gateway's row, each backend's old and new weight, and the kubectl line.
  const testing::ShellRun table = Route(kRouteExample);
  ASSERT_EQ(table.exit_code, 0) << table.output << Err();
  EXPECT_THAT(table.output, HasSubstr("# backend shop/storefront-france weight 1 → 60"));
  EXPECT_THAT(table.output, HasSubstr("kubectl -n shop patch httproute storefront --type json"));

  // A backend whose Service is not in the file: where it runs is unknown, named, exit 2.
  std::string without_france = *ReadFileToString(kRouteExample, "example");
  without_france = without_france.substr(0, without_france.rfind("---"));
  std::ofstream(dir_.path() + "/no-france.yaml") << without_france;
  EXPECT_EQ(Route(dir_.path() + "/no-france.yaml").exit_code, 2);
  EXPECT_THAT(Err(), HasSubstr("backend Service shop/storefront-france: give it in the file, "
                               "labelled topology.kubernetes.io/region"));
}

}  // namespace
}  // namespace carbonroute
