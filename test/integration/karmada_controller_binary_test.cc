// scheduler-lite karmada --controller, the real binary, against the fake
// Karmada API server (custom resources with a status subresource, watches,
// Leases, Events over HTTP) and a real collector (static provider): the
// carbon-aware-karmada-operator's sample policy is placed, a policy edit is
// placed at once (the resync is an hour: only the watch can do it), and the
// mistakes a user makes on the command line exit 2 naming the flag.
// Stays beside test/cluster/crd_controllers_test.cc (Karmada's own CRDs on the real
// API server, CarbonPlacementPolicy): this is the operator's CarbonAwareKarmadaPolicy
// sample end to end in the default tier, which runs without a control plane.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "kube/kube_client.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_kube_api_server.h"
#include "test/testing/rbac_rules.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"
#include "yaml-cpp/yaml.h"

namespace carbonroute {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

// The operator's samples/nginx/ objects, re-typed.
Json SeedPolicy(int desired) {
  Json policy = Json::parse(R"({
    "apiVersion": "carbonaware.rossf7.github.io/v1alpha1", "kind": "CarbonAwareKarmadaPolicy",
    "metadata": {"name": "carbon-aware-nginx-policy", "namespace": "default"},
    "spec": {"clusterLocations": [{"name": "member1", "location": "FR"},
                                  {"name": "member2", "location": "ES"},
                                  {"name": "member3", "location": "DE"}],
             "karmadaTarget": "propagationpolicies.policy.karmada.io",
             "karmadaTargetRef": {"name": "nginx-propagation", "namespace": "default"}}})");
  policy["spec"]["desiredClusters"] = desired;
  return policy;
}

TEST(KarmadaControllerBinary, PlacesTheSeedSampleAndAPolicyEditAtOnce) {
  testing::ScopedTempDir dir;
  testing::CollectorProcess collector = testing::StartCollector(
      dir.path(),
      absl::StrCat("listen_address: 127.0.0.1:0\ndatabase: ", dir.path(),
                   "/carbon.sqlite\nnode: {name: carbon-0}\n",
                   "providers: [{type: static, values: {FR: 56, ES: 120, DE: 380}}]\n"));
  ASSERT_NE(collector.port, 0);

  testing::FakeBatchApi api([] { return absl::Now(); });
  api.ServeResource("carbonaware.rossf7.github.io/v1alpha1", "carbonawarekarmadapolicies", true);
  api.ServeResource("carbonroute.io/v1alpha1", "carbonplacementpolicies", true);
  api.ServeResource("policy.karmada.io/v1alpha1", "propagationpolicies", true, false);
  api.ServeResource("policy.karmada.io/v1alpha1", "clusterpropagationpolicies", false, false);
  api.PutObject("propagationpolicies", Json::parse(R"({
    "apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
    "metadata": {"name": "nginx-propagation", "namespace": "default"},
    "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}],
             "placement": {"replicaScheduling": {"replicaSchedulingType": "Divided"}}}})"));
  api.PutObject("carbonawarekarmadapolicies", SeedPolicy(2));
  testing::FakeKubeApiServer kube;
  kube.ServeBatchApi(&api);

  testing::Subprocess controller(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "karmada", "--controller", "--kube-api-url",
       kube.base_url(), "--metrics", absl::StrCat("http://127.0.0.1:", collector.port, "/metrics"),
       "--resync", "1h", "--lease-namespace", "karmada-system", "--identity", "replica-a",
       "--web.listen-address", "127.0.0.1:0", "--data-dir",
       absl::StrCat(CARBONROUTE_SOURCE_DIR, "/data")},
      dir.File("karmada.log"));
  auto cluster_names = [&api] {
    return api.Get("propagationpolicies", "default", "nginx-propagation")
        .value(Json::json_pointer("/spec/placement/clusterAffinity/clusterNames"), Json::array());
  };
  // The target is patched first, then the status written: wait for both.
  auto status_of_policy = [&api] {
    return api.Get("carbonawarekarmadapolicies", "default", "carbon-aware-nginx-policy")
        .value("status", Json::object());
  };
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return cluster_names() == Json({"member1", "member2"}) &&
               status_of_policy().value("activeClusters", Json()) == Json({"member1", "member2"});
      },
      absl::Seconds(30)))
      << controller.Log();
  const Json status = status_of_policy();
  EXPECT_EQ(status["activeClusters"], Json({"member1", "member2"}));
  EXPECT_EQ(status["clusters"][0]["carbonIntensity"]["value"], "56.00");
  std::cerr << "status as written: " << status.dump(2) << "\n";

  // An edit is placed at once: the watch, not the hour-long resync.
  ASSERT_TRUE(kube.AwaitWatches(4, absl::Seconds(30))) << controller.Log();
  const absl::Time edited = absl::Now();
  api.PutObject("carbonawarekarmadapolicies", SeedPolicy(1));
  ASSERT_TRUE(
      testing::WaitFor([&] { return cluster_names() == Json({"member1"}); }, absl::Seconds(30)))
      << controller.Log();
  // A figure, not a margin: about a second (the controller looks at watch events every second).
  RecordProperty("edit_to_placement_ms",
                 static_cast<int>(absl::ToInt64Milliseconds(absl::Now() - edited)));

  // Its own /metrics and /healthz; the Lease it holds.
  std::smatch port;
  const std::string log = controller.Log();
  ASSERT_TRUE(std::regex_search(log, port, std::regex("metrics on http://127.0.0.1:([0-9]+)")))
      << log;
  int metrics_port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(port[1].str(), &metrics_port));
  const std::string metrics = testing::HttpGet(metrics_port, "/metrics");
  EXPECT_THAT(
      metrics,
      HasSubstr(
          R"(carbon_aware_karmada_operator_cluster_carbon_intensity{active="true",cluster="member1",location="FR"} 56)"));
  EXPECT_THAT(metrics, HasSubstr("carbonroute_karmada_leader 1"));
  EXPECT_TRUE(testing::IsHealthy(metrics_port));
  int live = 0;  // liveness, for the Deployment's probe: its loop turns
  EXPECT_EQ(testing::HttpGet(metrics_port, "/livez", &live), "ok\n");
  EXPECT_EQ(live, 200);
  EXPECT_EQ(api.Get("leases", "karmada-system", "carbonroute-karmada")["spec"]["holderIdentity"],
            "replica-a");
  EXPECT_EQ(controller.Terminate(), 0) << controller.Log();

  // Every request it made is one deploy/karmada/karmada-apiserver/rbac.yaml allows.
  const std::set<std::string> allowed = testing::AllowedByRbac(
      std::string(CARBONROUTE_SOURCE_DIR) + "/deploy/karmada/karmada-apiserver/rbac.yaml");
  std::set<std::string> made;
  for (const testing::KubeApiRequest& request : kube.requests()) {
    made.insert(testing::RbacNeededFor(request.method, request.target));
  }
  for (const std::string& request : made) EXPECT_TRUE(allowed.contains(request)) << request;
  EXPECT_TRUE(made.contains("policy.karmada.io propagationpolicies patch"));
  EXPECT_TRUE(
      made.contains("carbonaware.rossf7.github.io carbonawarekarmadapolicies/status patch"));
}

TEST(KarmadaControllerBinary, CommandLineMistakesExitTwoNamingTheFlag) {
  testing::ScopedTempDir dir;
  const std::string binary = CARBONROUTE_SCHEDULER_LITE_BINARY;
  struct Case {
    std::string args, says;
  };
  const std::vector<Case> cases = {
      {"karmada --controller --resync '5 minutes' --kube-api-url http://127.0.0.1:1",
       "--resync: expected a positive duration such as 90m, 2h or 7d, got \"5 minutes\""},
      {"karmada --controller --policy p.yaml", "drop --policy and --apply"},
      {"karmada", "--policy: is required for a one-shot patch (or give --controller)"},
      {"karmada --controller --kubeconfig " + dir.File("missing.config"), "missing.config"},
      {"karmada --policy p.yaml --dry-run", "--dry-run: is for --controller"},
      {"karmada --policy p.yaml --resync 5",
       "--resync: is for --controller (the one-shot mode plans once)"},
      {"karmada --controller --watts-per-gb -0.4 --kube-api-url http://127.0.0.1:1",
       "--watts-per-gb: must be a number of watts, 0 or more, got \"-0.4\""},
      {"karmada --controller --watts-per-cpu lots --kube-api-url http://127.0.0.1:1",
       "--watts-per-cpu: must be a number of watts, 0 or more, got \"lots\""},
  };
  for (const Case& c : cases) {
    const testing::ShellRun run =
        testing::Shell(absl::StrCat("cd ", dir.path(), " && ", binary, " ", c.args, " 2>&1"));
    EXPECT_EQ(run.exit_code, 2) << c.args << "\n" << run.output;
    EXPECT_THAT(run.output, HasSubstr(c.says)) << c.args;
  }
}

}  // namespace
}  // namespace carbonroute
