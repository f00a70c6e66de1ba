// scheduler-lite serve as deploy/kubernetes/scheduler.yaml runs it: the
// collectors found through the Kubernetes API (the Pods of both roles), read
// directly, with no Prometheus anywhere. The fake API lists two collector
// Pods whose prometheus.io/port annotations point at two real collectors on
// loopback (a latency-role one with its node_info, a carbon-role one).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_kube_api_server.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;

// The scheduler-lite container's args in the shipped manifest.
std::vector<std::string> ShippedServeArgs() {
  const std::vector<YAML::Node> documents = YAML::LoadAllFromFile(
      std::string(CARBONROUTE_SOURCE_DIR) + "/deploy/kubernetes/extender.yaml");
  for (const YAML::Node& document : documents) {
    if (document["kind"].as<std::string>() != "Deployment") continue;
    for (const YAML::Node& container : document["spec"]["template"]["spec"]["containers"]) {
      if (container["name"].as<std::string>() == "scheduler-lite") {
        return container["args"].as<std::vector<std::string>>();
      }
    }
  }
  return {};
}

TEST(ServeCollectorPods, TheShippedArgumentsFindTheCollectorsWithoutAPrometheus) {
  testing::ScopedTempDir dir;
  const std::string& root = dir.path();
  testing::CollectorProcess latency = testing::StartCollector(
      root,
      absl::StrCat("listen_address: 127.0.0.1:0\ndatabase: ", root,
                   "/latency.sqlite\nnode: {name: node-a, location: SE-SE3}\nproviders: []\n"));
  ASSERT_GT(latency.port, 0) << latency.process->Log();
  testing::CollectorProcess carbon = testing::StartCollector(
      root, absl::StrCat("listen_address: 127.0.0.1:0\ndatabase: ", root,
                         "/carbon.sqlite\nnode: {name: carbon-0}\n",
                         "providers: [{type: static, values: {SE-SE3: 40, PL: 700}}]\n"));
  ASSERT_GT(carbon.port, 0) << carbon.process->Log();

  testing::FakeBatchApi api([] { return absl::Now(); });
  const absl::Time created = absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()));
  api.AddPod("carbonroute", "carbonroute-collector-x1", created, {}, {},
             {{"app", "carbonroute-collector"}});
  api.AddPod("carbonroute", "carbonroute-carbon-y2", created, {}, {},
             {{"app", "carbonroute-carbon"}});
  api.AddPod("carbonroute", "carbonroute-collector-pending", created, {}, {},
             {{"app", "carbonroute-collector"}});  // no IP yet: not read
  api.AddPod("other", "carbonroute-collector-elsewhere", created, {}, {},
             {{"app", "carbonroute-collector"}});  // another namespace: not read
  api.SetPodStatus("carbonroute", "carbonroute-collector-x1", "Running", "127.0.0.1",
                   {{"prometheus.io/port", std::to_string(latency.port)}});
  api.SetPodStatus("carbonroute", "carbonroute-carbon-y2", "Running", "127.0.0.1",
                   {{"prometheus.io/port", std::to_string(carbon.port)}});
  api.SetPodStatus("other", "carbonroute-collector-elsewhere", "Running", "127.0.0.9",
                   {{"prometheus.io/port", "1"}});
  testing::FakeKubeApiServer kube;
  kube.ServeBatchApi(&api);

  std::vector<std::string> argv = {CARBONROUTE_SCHEDULER_LITE_BINARY};
  for (std::string arg : ShippedServeArgs()) {
    if (arg == "scheduler-lite") continue;
    if (absl::StartsWith(arg, "--web.listen-address=")) arg = "--web.listen-address=127.0.0.1:0";
    if (arg == "--refresh=30s") arg = "--refresh=1s";  // the test waits seconds, not minutes
    argv.push_back(arg);
  }
  ASSERT_GT(argv.size(), 4u);
  EXPECT_THAT(absl::StrJoin(argv, " "), ::testing::Not(HasSubstr("--prometheus")));
  argv.insert(argv.begin(), {"/usr/bin/env", "-u", "KUBECONFIG", "POD_NAMESPACE=carbonroute"});
  argv.insert(argv.end(), {"--kube-api-url", kube.base_url()});
  testing::Subprocess serve(argv, dir.File("serve.log"));
  const int port = testing::LoggedPort(serve, "serving the kube-scheduler extender on ");
  ASSERT_GT(port, 0) << serve.Log();
  int status = 0;
  std::string health;
  // The two selectors' Pods are listed on threads of their own: the first model may be
  // built before the second list is in, and the next refresh (1 s) reads both.
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        health = testing::HttpGet(port, "/healthz", &status);
        return status == 200 && absl::StrContains(health, "ok: 2 locations, 2 nodes");
      },
      absl::Seconds(30)))
      << health << serve.Log();  // node-a, and carbon-0's own
  EXPECT_THAT(serve.Log(), HasSubstr("collectors: the Pods app=carbonroute-collector, "
                                     "app=carbonroute-carbon in namespace carbonroute"));
  // The node is ranked on the carbon role's reading for its location.
  int code = 0;
  const std::string reply = testing::HttpGet(port, "/api/v1/status", &code);
  EXPECT_EQ(code, 200);
  EXPECT_THAT(reply, HasSubstr("SE-SE3"));
  // Liveness, for the Deployment's probe: its refresh loop turns.
  EXPECT_EQ(testing::HttpGet(port, "/livez", &code), "ok\n");
  EXPECT_EQ(code, 200);
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
  // The collectors' Pods, the Nodes (a Node without a collector is a candidate too) and every
  // Pod (the savings ledger learns the bindings): what system:kube-scheduler, which
  // scheduler.yaml binds, lets it read.
  bool nodes_watched = false, pods_watched = false;
  for (const testing::KubeApiRequest& request : kube.requests()) {
    if (absl::StartsWith(request.target, "/api/v1/nodes")) {
      nodes_watched = true;
      continue;
    }
    if (absl::StartsWith(request.target, "/api/v1/pods?")) {
      pods_watched = true;
      continue;
    }
    EXPECT_THAT(request.target, ::testing::StartsWith("/api/v1/namespaces/carbonroute/pods"));
  }
  EXPECT_TRUE(nodes_watched);
  EXPECT_TRUE(pods_watched);
  EXPECT_EQ(latency.process->Terminate(), 0);
  EXPECT_EQ(carbon.process->Terminate(), 0);
}

// Before the first model /healthz says what it waits for.
TEST(ServeCollectorPods, HealthzNamesTheSourceItWaitsFor) {
  testing::ScopedTempDir dir;
  testing::FakeBatchApi api([] { return absl::Now(); });
  testing::FakeKubeApiServer kube;
  kube.ServeBatchApi(&api);
  testing::Subprocess serve(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "serve", "--web.listen-address", "127.0.0.1:0",
       "--collector-pods", "app=carbonroute-collector", "--collector-namespace", "carbonroute",
       "--kube-api-url", kube.base_url(), "--refresh", "1s"},
      dir.File("serve.log"));
  const int port = testing::LoggedPort(serve, "serving the kube-scheduler extender on ");
  ASSERT_GT(port, 0) << serve.Log();
  int status = 0;
  std::string health;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        health = testing::HttpGet(port, "/healthz", &status);
        return status == 503 && health.find("(0 serving)") != std::string::npos;
      },
      absl::Seconds(30)))
      << health << serve.Log();
  EXPECT_THAT(health, HasSubstr("no model loaded yet: waiting for Pods app=carbonroute-collector "
                                "in carbonroute (0 serving)"));
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
}

}  // namespace
}  // namespace carbonroute
