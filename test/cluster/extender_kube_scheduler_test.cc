// The extender under the real kube-scheduler (built from k8s.io/kubernetes at
// test/cluster/versions), on the real API server with kwok's Nodes in
// Belgium (150 gCO2eq/kWh), Germany (380) and France (56). kube-scheduler runs
// with the KubeSchedulerConfiguration deploy/kubernetes/scheduler.yaml ships
// (read back from the applied ConfigMap), its urlPrefix pointed at this
// test's `scheduler-lite serve`, with nodeCacheCapable and ignorable each
// true and false (leader election off: each case starts its own); each runs with
// the token of its shipped ServiceAccount (carbonroute-scheduler,
// carbonroute-extender), as the Deployments run them.
// RTTs from GCP's inter-region matrix (data/): europe-west3 (Germany) to
// europe-west1 (Belgium) 8 ms, to europe-west9 (France) 10 ms; asia-south1 is
// over 100 ms from all three.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "test/cluster/cluster_test_support.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/real_control_plane.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"
#include "test/testing/test_certificates.h"

namespace carbonroute {
namespace {

using testing::Field;
using ::testing::HasSubstr;
using testing::PodYaml;
using testing::RealControlPlane;

constexpr char kScheduler[] = "carbonroute";  // the shipped profile's schedulerName

class ExtenderUnderKubeScheduler : public ::testing::TestWithParam<std::pair<bool, bool>> {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::ScopedTempDir;
    RealControlPlane& plane = testing::SharedControlPlane();
    collector_ = new testing::CollectorProcess(testing::StartCarbonRole(plane, dir_->path()));
    ASSERT_GT(collector_->port, 0) << collector_->process->Log();
    serve_port_ = testing::FreeLoopbackPort();
    serve_ = testing::StartServe(plane, dir_->path(), serve_port_, collector_->port).release();
  }
  static void TearDownTestSuite() {
    delete serve_;
    delete collector_;
    delete dir_;
  }
  void TearDown() override {
    if (!namespace_.empty())
      plane_.Kubectl("delete namespace --wait=false " + namespace_).IgnoreError();
  }

  // kube-scheduler with the shipped configuration and this test's switches.
  std::unique_ptr<testing::Subprocess> StartScheduler(int extender_port) {
    const auto [node_cache_capable, ignorable] = GetParam();
    return testing::StartKubeScheduler(
        plane_, dir_->path(),
        absl::StrCat("kube-scheduler-", ::testing::UnitTest::GetInstance()->random_seed(), "-",
                     namespace_),
        testing::ShippedSchedulerConfig(plane_, extender_port, node_cache_capable, ignorable));
  }
  std::string NodeOf(const std::string& pod) {
    return Field(plane_, "pod " + pod, namespace_, "{.spec.nodeName}");
  }
  bool WaitBound(const std::string& pod) {
    const bool bound = testing::WaitFor([&] { return !NodeOf(pod).empty(); }, absl::Seconds(60));
    if (!bound) ADD_FAILURE() << pod << ": " << testing::EventsOf(plane_, namespace_, "Pod", pod);
    return bound;
  }

  static testing::ScopedTempDir* dir_;
  static testing::CollectorProcess* collector_;
  static testing::Subprocess* serve_;
  static int serve_port_;
  RealControlPlane& plane_ = testing::SharedControlPlane();
  std::string namespace_ = plane_.NewNamespace();
};
testing::ScopedTempDir* ExtenderUnderKubeScheduler::dir_ = nullptr;
testing::CollectorProcess* ExtenderUnderKubeScheduler::collector_ = nullptr;
testing::Subprocess* ExtenderUnderKubeScheduler::serve_ = nullptr;
int ExtenderUnderKubeScheduler::serve_port_ = 0;

TEST_P(ExtenderUnderKubeScheduler, PodsLandOnTheCleanestNodeWithinTheirLimits) {
  std::unique_ptr<testing::Subprocess> scheduler = StartScheduler(serve_port_);
  // No limit: France, the cleanest. Within 9 ms of Germany: Germany and Belgium (8 ms), not
  // France (10 ms): Belgium. Within 20 ms of asia-south1: no Node.
  ASSERT_TRUE(
      plane_
          .Apply(absl::StrCat(
              PodYaml(namespace_, "free", kScheduler), "---\n",
              PodYaml(namespace_, "near-germany", kScheduler, {{"delay_europe-west3", "9"}}),
              "---\n",
              PodYaml(namespace_, "near-mumbai", kScheduler, {{"delay_asia-south1", "20"}})))
          .ok());
  ASSERT_TRUE(WaitBound("free")) << scheduler->Log();
  EXPECT_EQ(NodeOf("free"), "n-fr");
  ASSERT_TRUE(WaitBound("near-germany")) << scheduler->Log();
  EXPECT_EQ(NodeOf("near-germany"), "n-be");
  // kube-scheduler's own Event carries the extender's reason for each Node.
  std::string events;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        events = testing::EventsOf(plane_, namespace_, "Pod", "near-mumbai");
        return absl::StrContains(events, "FailedScheduling");
      },
      absl::Seconds(60)))
      << scheduler->Log();
  EXPECT_THAT(events, HasSubstr("RTT from asia-south1"));
  EXPECT_THAT(events, HasSubstr("over the 20 ms limit"));
  EXPECT_EQ(NodeOf("near-mumbai"), "");
  EXPECT_EQ(Field(plane_, "pod near-mumbai", namespace_, "{.status.phase}"), "Pending");
  // kwok ran the bound Pods: Running and Ready, as a kubelet reports them.
  EXPECT_TRUE(testing::WaitFor(
      [&] { return Field(plane_, "pod free", namespace_, "{.status.phase}") == "Running"; },
      absl::Seconds(30)));
}

// The shipped example Deployment (deploy/kubernetes/examples/deployment.yaml), in this test's
// namespace, its limit taken from the edge gateway it names to Germany's region (this cluster
// has no edge-gw-1): the Deployment and ReplicaSet controllers make its two Pods, which name
// the carbonroute profile by schedulerName, and both land in Belgium.
TEST_P(ExtenderUnderKubeScheduler, TheExampleDeploymentsPodsLandWithinTheirLimit) {
  std::unique_ptr<testing::Subprocess> scheduler = StartScheduler(serve_port_);
  const std::string example = testing::ReadFile(
      absl::StrCat(CARBONROUTE_SOURCE_DIR, "/deploy/kubernetes/examples/deployment.yaml"));
  ASSERT_THAT(example, HasSubstr("schedulerName: carbonroute"));
  ASSERT_TRUE(plane_
                  .Apply(absl::StrReplaceAll(
                      example, {{"namespace: default", "namespace: " + namespace_},
                                {"delay_edge-gw-1: \"25\"", "delay_europe-west3: \"9\""}}))
                  .ok());
  std::string nodes;
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        nodes = Field(plane_, "pods -l app=batch-render", namespace_, "{.items[*].spec.nodeName}");
        return nodes == "n-be n-be";
      },
      absl::Seconds(60)))
      << nodes << scheduler->Log();
}

// "NodeCacheCapableIgnorableAsShipped", "FullNodesNotIgnorable", ...
std::string SwitchesName(const ::testing::TestParamInfo<std::pair<bool, bool>>& switches) {
  const auto [node_cache_capable, ignorable] = switches.param;
  return absl::StrCat(node_cache_capable ? "NodeCacheCapable" : "FullNodes",
                      ignorable ? "Ignorable" : "NotIgnorable",
                      node_cache_capable && ignorable ? "AsShipped" : "");
}

INSTANTIATE_TEST_SUITE_P(ShippedAndOtherSwitches, ExtenderUnderKubeScheduler,
                         ::testing::Values(std::pair{true, true}, std::pair{true, false},
                                           std::pair{false, true}, std::pair{false, false}),
                         SwitchesName);

// The faults, each with its own collector, serve and kube-scheduler (the shipped
// configuration, nodeCacheCapable).
class ExtenderFaultsUnderKubeScheduler : public ::testing::Test {
 protected:
  void TearDown() override {
    plane_.Kubectl("delete namespace --wait=false " + namespace_).IgnoreError();
  }
  std::unique_ptr<testing::Subprocess> StartScheduler(const std::string& name, int extender_port,
                                                      bool ignorable) {
    return testing::StartKubeScheduler(
        plane_, dir_.path(), name,
        testing::ShippedSchedulerConfig(plane_, extender_port, true, ignorable));
  }
  std::string Events(const std::string& pod) {
    return testing::EventsOf(plane_, namespace_, "Pod", pod);
  }
  std::string NodeOf(const std::string& pod) {
    return Field(plane_, "pod " + pod, namespace_, "{.spec.nodeName}");
  }

  testing::ScopedTempDir dir_;
  RealControlPlane& plane_ = testing::SharedControlPlane();
  std::string namespace_ = plane_.NewNamespace();
};

// HTTPS between kube-scheduler and serve, as the chart configures both with
// scheduler.extender.tlsSecret: serve with the chart's web.yml (its certificate for
// 127.0.0.1 here), kube-scheduler with the chart's extender config (https, enableHTTPS,
// tlsConfig.caFile) and ignorable: false, so a handshake that failed would leave the Pods
// Pending: the free Pod lands on France, the limited one on Belgium.
TEST_F(ExtenderFaultsUnderKubeScheduler, KubeSchedulerCallsServeOverHttpsAsTheChartConfiguresIt) {
  const testing::TestCertificates pki = testing::MakeTestCertificates(dir_.path());
  absl::StatusOr<std::string> rendered = testing::RenderChart(
      plane_,
      "--set scheduler.extender.tlsSecret=extender-tls "
      "--show-only templates/extender.yaml --show-only templates/scheduler.yaml");
  ASSERT_TRUE(rendered.ok()) << rendered.status();
  const std::string web = dir_.File("web.yml");
  std::ofstream(web) << absl::StrReplaceAll(
      testing::ConfigMapFile(*rendered, "web.yml"),
      {{"/etc/carbonroute/tls/tls.crt", pki.server_cert_file},
       {"/etc/carbonroute/tls/tls.key", pki.server_key_file}});
  testing::CollectorProcess collector = testing::StartCarbonRole(plane_, dir_.path());
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  absl::StatusOr<std::string> kubeconfig =
      plane_.ServiceAccountKubeconfig("carbonroute", "carbonroute-extender");
  ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.status();
  const int port = testing::FreeLoopbackPort();
  testing::Subprocess serve(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "serve",
       absl::StrCat("--web.listen-address=127.0.0.1:", port), "--web.config.file=" + web,
       "--refresh=1s", "--kubeconfig=" + *kubeconfig,
       absl::StrCat("--metrics=http://127.0.0.1:", collector.port, "/metrics"),
       absl::StrCat("--data-dir=", CARBONROUTE_SOURCE_DIR, "/data")},
      dir_.File("serve-https.log"));
  const std::string healthz =
      absl::StrCat("curl -s --cacert ", pki.ca_file, " https://127.0.0.1:", port, "/healthz");
  ASSERT_TRUE(testing::WaitFor(
      [&] { return absl::StrContains(testing::Shell(healthz).output, "3 locations"); },
      absl::Seconds(60)))
      << serve.Log();
  // The chart's KubeSchedulerConfiguration, pointed at this serve and this CA.
  const std::string shipped = testing::ConfigMapFile(*rendered, "scheduler-config.yaml");
  ASSERT_THAT(shipped, HasSubstr("enableHTTPS: true"));
  const std::string config = absl::StrCat(
      absl::StrReplaceAll(shipped, {{"https://carbonroute-extender.carbonroute.svc:8888",
                                     absl::StrCat("https://127.0.0.1:", port)},
                                    {"/etc/kubernetes/extender-tls/ca.crt", pki.ca_file},
                                    {"leaderElect: true", "leaderElect: false"},
                                    {"ignorable: true", "ignorable: false"}}),
      "clientConnection: {kubeconfig: \"",
      plane_.ServiceAccountKubeconfig("carbonroute", "carbonroute-scheduler").value_or(""),
      "\"}\n");
  ASSERT_THAT(config, HasSubstr(absl::StrCat("urlPrefix: \"https://127.0.0.1:", port)));
  std::unique_ptr<testing::Subprocess> scheduler =
      testing::StartKubeScheduler(plane_, dir_.path(), "kube-scheduler-https", config);
  ASSERT_TRUE(plane_
                  .Apply(absl::StrCat(PodYaml(namespace_, "free", kScheduler), "---\n",
                                      PodYaml(namespace_, "near-germany", kScheduler,
                                              {{"delay_europe-west3", "9"}})))
                  .ok());
  for (const auto& placed : {std::pair{"free", "n-fr"}, std::pair{"near-germany", "n-be"}}) {
    const std::string pod = placed.first, node = placed.second;
    EXPECT_TRUE(testing::WaitFor([&] { return NodeOf(pod) == node; }, absl::Seconds(60)))
        << pod << " on \"" << NodeOf(pod) << "\": " << Events(pod) << scheduler->Log();
  }
  scheduler->Terminate();
  serve.Terminate();
}

// (i) The carbon role hangs (SIGSTOP: its socket accepts, nothing answers). serve keeps
// answering kube-scheduler within httpTimeout (2 s) under ignorable: false, where a late answer
// would fail the Pod: a Pod without a latency limit is bound. Once the model is older than
// --max-model-age (3 s here), a Pod with a limit fails on every Node, kube-scheduler's Event
// naming the limit and the model's age (docs/scheduler-lite.md).
TEST_F(ExtenderFaultsUnderKubeScheduler,
       AHangingCollectorLeavesServeAnsweringAndLimitedPodsRefusedOnceTheModelIsTooOld) {
  testing::CollectorProcess collector = testing::StartCarbonRole(plane_, dir_.path());
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  const int port = testing::FreeLoopbackPort();
  std::unique_ptr<testing::Subprocess> serve =
      testing::StartServe(plane_, dir_.path(), port, collector.port, {"--max-model-age=3s"});
  std::unique_ptr<testing::Subprocess> scheduler =
      StartScheduler("kube-scheduler-hanging", port, /*ignorable=*/false);
  collector.process->Signal(SIGSTOP);
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return testing::SeriesValue(testing::HttpGet(port, "/metrics"),
                                    {"carbonroute_scheduler_model_age_seconds "}) > 4;
      },
      absl::Seconds(60)))
      << serve->Log();
  ASSERT_TRUE(plane_
                  .Apply(absl::StrCat(PodYaml(namespace_, "free", kScheduler), "---\n",
                                      PodYaml(namespace_, "near-germany", kScheduler,
                                              {{"delay_europe-west3", "9"}})))
                  .ok());
  EXPECT_TRUE(testing::WaitFor([&] { return !NodeOf("free").empty(); }, absl::Seconds(60)))
      << Events("free") << scheduler->Log();
  std::string events;
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        events = Events("near-germany");
        return absl::StrContains(events, "FailedScheduling");
      },
      absl::Seconds(60)));
  EXPECT_THAT(events, HasSubstr("latency limit delay_europe-west3=9ms cannot be verified: the "
                                "placement model is"));
  EXPECT_THAT(events, HasSubstr("old (over 3s): its sources cannot be read"));
  EXPECT_EQ(NodeOf("near-germany"), "");
  collector.process->Signal(SIGCONT);
}

// (ii) serve stopped: under ignorable: false kube-scheduler cannot place the Pod and says why
// in its Event; the same Pod, once a kube-scheduler with ignorable: true (as shipped) takes
// over, is bound without the extender.
TEST_F(ExtenderFaultsUnderKubeScheduler, AStoppedServeHoldsPodsOnlyWhenNotIgnorable) {
  testing::CollectorProcess collector = testing::StartCarbonRole(plane_, dir_.path());
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  const int port = testing::FreeLoopbackPort();
  testing::StartServe(plane_, dir_.path(), port, collector.port)->Terminate();
  {
    std::unique_ptr<testing::Subprocess> strict =
        StartScheduler("kube-scheduler-strict", port, /*ignorable=*/false);
    ASSERT_TRUE(plane_.Apply(PodYaml(namespace_, "web", kScheduler)).ok());
    std::string events;
    ASSERT_TRUE(testing::WaitFor(
        [&] {
          events = Events("web");
          return absl::StrContains(events, "FailedScheduling");
        },
        absl::Seconds(60)))
        << strict->Log();
    EXPECT_THAT(events, HasSubstr(absl::StrCat("127.0.0.1:", port, "/filter")));
    EXPECT_THAT(events, HasSubstr("connection refused"));
    EXPECT_EQ(NodeOf("web"), "");
  }
  std::unique_ptr<testing::Subprocess> ignoring =
      StartScheduler("kube-scheduler-ignoring", port, /*ignorable=*/true);
  EXPECT_TRUE(testing::WaitFor([&] { return !NodeOf("web").empty(); }, absl::Seconds(60)))
      << ignoring->Log();
}

}  // namespace
}  // namespace carbonroute
