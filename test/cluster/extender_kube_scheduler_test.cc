// The extender under the real kube-scheduler (built from k8s.io/kubernetes at
// test/cluster/versions), on the real API server with kwok's Nodes in
// Belgium (150 gCO2eq/kWh), Germany (380) and France (56). kube-scheduler runs
// with the KubeSchedulerConfiguration deploy/kubernetes/scheduler.yaml ships
// (read back from the applied ConfigMap), its urlPrefix pointed at this
// test's `scheduler-lite serve`, with nodeCacheCapable and ignorable each
// true and false; both run with the token of the shipped ServiceAccount
// carbonroute-scheduler, as the Deployment runs them.
// RTTs from GCP's inter-region matrix (data/): europe-west3 (Germany) to
// europe-west1 (Belgium) 8 ms, to europe-west9 (France) 10 ms; asia-south1 is
// over 100 ms from all three.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "test/cluster/cluster_test_support.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/real_control_plane.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using testing::Field;
using ::testing::HasSubstr;
using testing::PodYaml;
using testing::RealControlPlane;

constexpr char kScheduler[] = "carbonroute";  // the shipped profile's schedulerName

// `scheduler-lite serve` as the shipped Deployment runs it, with the ServiceAccount's token,
// reading the carbon role's collector directly (--metrics) every second.
std::unique_ptr<testing::Subprocess> StartServe(const RealControlPlane& plane,
                                                const std::string& dir, int port,
                                                int collector_port,
                                                const std::vector<std::string>& extra = {}) {
  absl::StatusOr<std::string> kubeconfig =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-scheduler");
  EXPECT_TRUE(kubeconfig.ok()) << kubeconfig.status();
  std::vector<std::string> argv = {
      CARBONROUTE_SCHEDULER_LITE_BINARY,
      "serve",
      absl::StrCat("--web.listen-address=127.0.0.1:", port),
      "--refresh=1s",
      "--kubeconfig=" + kubeconfig.value_or(""),
      absl::StrCat("--metrics=http://127.0.0.1:", collector_port, "/metrics"),
      absl::StrCat("--data-dir=", CARBONROUTE_SOURCE_DIR, "/data")};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto serve = std::make_unique<testing::Subprocess>(argv, dir + "/serve.log");
  EXPECT_TRUE(testing::WaitFor(
      [&] { return absl::StrContains(testing::HttpGet(port, "/healthz"), "3 locations"); },
      absl::Seconds(60)))
      << serve->Log() << testing::HttpGet(port, "/healthz");
  return serve;
}

// The shipped KubeSchedulerConfiguration, from the ConfigMap the manifests applied, with the
// extender at `port`, the two switches set, and the ServiceAccount's kubeconfig.
std::string ShippedSchedulerConfig(const RealControlPlane& plane, int port, bool node_cache_capable,
                                   bool ignorable) {
  const std::string shipped = Field(plane, "configmap carbonroute-scheduler-config", "carbonroute",
                                    "{.data.scheduler-config\\.yaml}");
  EXPECT_THAT(shipped, HasSubstr("urlPrefix: \"http://127.0.0.1:8888\""));
  EXPECT_THAT(shipped, HasSubstr("nodeCacheCapable: true"));
  EXPECT_THAT(shipped, HasSubstr("ignorable: true"));
  absl::StatusOr<std::string> kubeconfig =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-scheduler");
  EXPECT_TRUE(kubeconfig.ok()) << kubeconfig.status();
  return absl::StrCat(
      absl::StrReplaceAll(
          shipped,
          {{"http://127.0.0.1:8888", absl::StrCat("http://127.0.0.1:", port)},
           {"nodeCacheCapable: true",
            absl::StrCat("nodeCacheCapable: ", node_cache_capable ? "true" : "false")},
           {"ignorable: true", absl::StrCat("ignorable: ", ignorable ? "true" : "false")}}),
      "clientConnection: {kubeconfig: \"", kubeconfig.value_or(""), "\"}\n");
}

class ExtenderUnderKubeScheduler : public ::testing::TestWithParam<std::pair<bool, bool>> {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::ScopedTempDir;
    RealControlPlane& plane = testing::SharedControlPlane();
    collector_ = new testing::CollectorProcess(testing::StartCarbonRole(plane, dir_->path()));
    ASSERT_GT(collector_->port, 0) << collector_->process->Log();
    serve_port_ = testing::FreeLoopbackPort();
    serve_ = StartServe(plane, dir_->path(), serve_port_, collector_->port).release();
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
        ShippedSchedulerConfig(plane_, extender_port, node_cache_capable, ignorable));
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

INSTANTIATE_TEST_SUITE_P(ShippedAndOtherSwitches, ExtenderUnderKubeScheduler,
                         ::testing::Values(std::pair{true, true}, std::pair{true, false},
                                           std::pair{false, true}, std::pair{false, false}),
                         [](const ::testing::TestParamInfo<std::pair<bool, bool>>& info) {
                           return absl::StrCat(
                               info.param.first ? "NodeCacheCapable" : "FullNodes",
                               info.param.second ? "Ignorable" : "NotIgnorable",
                               info.param.first && info.param.second ? "AsShipped" : "");
                         });

}  // namespace
}  // namespace carbonroute
