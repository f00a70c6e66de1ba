// The Helm chart deploy/helm/carbonroute on the real control plane (its own: the shared one
// holds the kustomize base, whose cluster-wide objects a release may not adopt), with the
// pinned Helm 4, in a namespace the test creates enforcing Pod Security "restricted", for
// the four combinations scripts/check-chart renders: the defaults, shadow mode, another
// namespace (the routing controller on too) and KEDA publishing on. Each: `helm install
// --wait` creates every Pod of every component (no FailedCreate: admission refused none)
// and they run on kwok's Nodes; `helm upgrade` with a changed value takes effect;
// `helm uninstall` leaves nothing of carbonroute's but the CRDs (Helm never deletes
// them, docs/kubernetes.md). In another namespace, serve and hold then run with their own
// ServiceAccounts' tokens unrefused. A wrong value in a values file fails the install
// naming the value, and installs nothing; the live providers' configuration the chart
// writes is one the collector accepts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "test/cluster/cluster_test_support.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/real_control_plane.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::RealControlPlane;

std::string Chart() { return std::string(CARBONROUTE_SOURCE_DIR) + "/deploy/helm/carbonroute"; }

struct Combination {
  std::string name, namespace_name, values;
  std::vector<std::string> workloads;  // "deployment/NAME" or "daemonset/NAME"
};

std::ostream& operator<<(std::ostream& out, const Combination& c) { return out << c.name; }

const std::vector<std::string> kEvery = {
    "daemonset/carbonroute-collector", "deployment/carbonroute-carbon",
    "deployment/carbonroute-scheduler", "deployment/carbonroute-extender",
    "deployment/carbonroute-hold"};

class HelmChartOnTheRealControlPlane : public ::testing::TestWithParam<Combination> {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::ScopedTempDir;
    plane_ = new RealControlPlane(dir_->File("plane"));
  }
  static void TearDownTestSuite() {
    delete plane_;
    delete dir_;
  }

  // The namespace, labelled to enforce Pod Security "restricted" as docs/kubernetes.md says.
  void CreateRestrictedNamespace(const std::string& name) {
    ASSERT_TRUE(
        plane_
            ->Apply(absl::StrCat("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ", name,
                                 "\n  labels: {pod-security.kubernetes.io/enforce: "
                                 "restricted}\n"))
            .ok());
  }
  // Every object carbonroute's release leaves in `ns`, kube-system and the cluster scope.
  std::string Leftovers(const std::string& ns) {
    std::string left;
    for (const std::string& where :
         {absl::StrCat("-n ", ns,
                       " all,configmaps,secrets,serviceaccounts,roles,rolebindings,"
                       "networkpolicies,poddisruptionbudgets,leases"),
          std::string("-n kube-system roles,rolebindings"),
          std::string("clusterroles,clusterrolebindings,priorityclasses")}) {
      absl::StatusOr<std::string> names = plane_->Kubectl(
          absl::StrCat("get ", where, " -l app.kubernetes.io/part-of=carbonroute -o name"));
      absl::StrAppend(&left, names.value_or("(kubectl failed) "));
    }
    return left;
  }

  static testing::ScopedTempDir* dir_;
  static RealControlPlane* plane_;
};
testing::ScopedTempDir* HelmChartOnTheRealControlPlane::dir_ = nullptr;
RealControlPlane* HelmChartOnTheRealControlPlane::plane_ = nullptr;

TEST_P(HelmChartOnTheRealControlPlane, InstallsUpgradesAndUninstallsInARestrictedNamespace) {
  const Combination& c = GetParam();
  CreateRestrictedNamespace(c.namespace_name);
  absl::StatusOr<std::string> installed =
      plane_->Helm(absl::StrCat("install carbonroute ", Chart(), " --namespace ", c.namespace_name,
                                " --wait --timeout 180s ", c.values));
  ASSERT_TRUE(installed.ok()) << installed.status()
                              << plane_->Kubectl("get events -n " + c.namespace_name).value_or("");
  for (const std::string& workload : c.workloads) {
    const std::string readiness = testing::Readiness(*plane_, c.namespace_name, workload);
    const std::vector<std::string> parts = absl::StrSplit(readiness, '/');
    ASSERT_EQ(parts.size(), 2u) << workload << ": " << readiness;
    EXPECT_EQ(parts[0], parts[1]) << workload << " not every Pod ready";
    EXPECT_NE(parts[1], "0") << workload;
  }
  // Admission refused no Pod: no FailedCreate, and every Pod runs on a kwok Node.
  absl::StatusOr<std::string> failed = plane_->Kubectl(absl::StrCat(
      "get events -n ", c.namespace_name, " --field-selector reason=FailedCreate -o name"));
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_THAT(*failed, IsEmpty());
  const std::string phases =
      testing::Field(*plane_, "pods", c.namespace_name, "{range .items[*]}{.status.phase} {end}");
  EXPECT_THAT(phases, HasSubstr("Running"));
  EXPECT_THAT(phases, ::testing::Not(HasSubstr("Pending")));
  // Anything refused as a ServiceAccount of the release (kube-scheduler's, the controllers')?
  // (kwok runs no container: what the components do with their tokens is the next test's.)
  for (const testing::AuditEvent& event : plane_->Audit()) {
    if (absl::StrContains(event.user, absl::StrCat(":", c.namespace_name, ":"))) {
      EXPECT_NE(event.code, 403) << event.user << " " << event.verb << " " << event.resource;
    }
  }

  // An upgrade with a changed value: hold down to one replica.
  absl::StatusOr<std::string> upgraded =
      plane_->Helm(absl::StrCat("upgrade carbonroute ", Chart(), " --namespace ", c.namespace_name,
                                " --wait --timeout 180s ", c.values, " --set hold.replicas=1"));
  ASSERT_TRUE(upgraded.ok()) << upgraded.status();
  EXPECT_EQ(testing::Readiness(*plane_, c.namespace_name, "deployment/carbonroute-hold"), "1/1");

  absl::StatusOr<std::string> uninstalled =
      plane_->Helm(absl::StrCat("uninstall carbonroute --namespace ", c.namespace_name, " --wait"));
  ASSERT_TRUE(uninstalled.ok()) << uninstalled.status();
  EXPECT_TRUE(
      testing::WaitFor([&] { return Leftovers(c.namespace_name).empty(); }, absl::Seconds(60)))
      << Leftovers(c.namespace_name);
  if (absl::StrContains(c.values, "routing.enabled=true")) {
    // The documented leftover: Helm installs crds/ and never deletes them.
    EXPECT_TRUE(plane_->Kubectl("get crd carbonroutingpolicies.carbonroute.io").ok());
    EXPECT_TRUE(plane_->Kubectl("get crd carbonrebalancepolicies.carbonroute.io").ok());
  }
}

INSTANTIATE_TEST_SUITE_P(
    FourCombinations, HelmChartOnTheRealControlPlane,
    ::testing::Values(
        Combination{"defaults", "carbonroute", "", kEvery},
        Combination{"shadow",
                    "carbonroute-shadow",
                    "--set scheduler.mode=shadow",
                    {"daemonset/carbonroute-collector", "deployment/carbonroute-carbon",
                     "deployment/carbonroute-extender", "deployment/carbonroute-hold"}},
        Combination{"namespace",
                    "platform-carbon",
                    "--set routing.enabled=true --set rebalance.enabled=true",
                    {"daemonset/carbonroute-collector", "deployment/carbonroute-carbon",
                     "deployment/carbonroute-scheduler", "deployment/carbonroute-extender",
                     "deployment/carbonroute-hold", "deployment/carbonroute-route",
                     "deployment/carbonroute-rebalance"}},
        Combination{"keda", "carbonroute-keda", "--set carbon.kedaConfigMaps[0].location=eastus",
                    kEvery}),
    [](const ::testing::TestParamInfo<Combination>& param) { return param.param.name; });

// In a namespace of one value, serve and hold run as the release's ServiceAccounts: nothing
// refused, and hold reaches the carbon role's collector through the URL that follows it.
TEST_F(HelmChartOnTheRealControlPlane, InAnotherNamespaceEachComponentWorksWithItsOwnToken) {
  const std::string ns = "team-carbon";
  CreateRestrictedNamespace(ns);
  ASSERT_TRUE(plane_
                  ->Helm(absl::StrCat("install carbonroute ", Chart(), " --namespace ", ns,
                                      " --wait --timeout 180s"))
                  .ok());
  const std::string hold_args = testing::Field(*plane_, "deployment carbonroute-hold", ns,
                                               "{.spec.template.spec.containers[0].args}");
  EXPECT_THAT(hold_args, HasSubstr("http://carbonroute-carbon.team-carbon.svc:9464"));
  const size_t from = plane_->Audit().size();
  absl::StatusOr<std::string> extender =
      plane_->ServiceAccountKubeconfig(ns, "carbonroute-extender");
  absl::StatusOr<std::string> hold = plane_->ServiceAccountKubeconfig(ns, "carbonroute-hold");
  ASSERT_TRUE(extender.ok() && hold.ok());
  const int serve_port = testing::FreeLoopbackPort();
  testing::Subprocess serve(
      testing::SchedulerLite({"serve", absl::StrCat("--web.listen-address=127.0.0.1:", serve_port),
                              "--kubeconfig=" + *extender,
                              "--collector-pods=app=carbonroute-collector",
                              "--collector-namespace=" + ns, "--refresh=2s"}),
      dir_->File("serve.log"));
  const int hold_port = testing::FreeLoopbackPort();
  testing::Subprocess hold_process(
      testing::SchedulerLite({"hold", "--kubeconfig=" + *hold, "--collector=http://127.0.0.1:1",
                              absl::StrCat("--web.listen-address=127.0.0.1:", hold_port),
                              "--resync=2s", "--lease-namespace=" + ns, "--identity=helm-test"}),
      dir_->File("hold.log"));
  EXPECT_TRUE(testing::WaitFor([&] { return testing::IsHealthy(hold_port); }, absl::Seconds(60)))
      << hold_process.Log();
  int requests = 0;
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        requests = 0;
        const std::vector<testing::AuditEvent> audit = plane_->Audit();
        for (size_t i = from; i < audit.size(); ++i) {
          requests += absl::StrContains(audit[i].user, ":" + ns + ":carbonroute-extender");
        }
        return requests >= 2;
      },
      absl::Seconds(60)))
      << serve.Log();
  const std::vector<testing::AuditEvent> audit = plane_->Audit();
  for (size_t i = from; i < audit.size(); ++i) {
    if (absl::StrContains(audit[i].user, ":" + ns + ":")) {
      EXPECT_NE(audit[i].code, 403) << audit[i].user << " " << audit[i].verb << " "
                                    << audit[i].resource << ": " << audit[i].message;
    }
  }
  hold_process.Terminate();
  serve.Terminate();
  ASSERT_TRUE(plane_->Helm("uninstall carbonroute --wait --namespace " + ns).ok());
}

// A careless user's values file: a misspelt key fails `helm install` naming its path, and
// nothing is installed.
TEST_F(HelmChartOnTheRealControlPlane, AWrongValueFailsTheInstallNamingIt) {
  const std::string ns = "carbonroute-typo";
  CreateRestrictedNamespace(ns);
  // The namespace does enforce "restricted": a Pod that says nothing of its security is refused.
  const absl::Status plain = plane_->Apply(testing::PodYaml(ns, "plain", "default-scheduler"));
  EXPECT_FALSE(plain.ok());
  EXPECT_THAT(plain.message(), HasSubstr("violates PodSecurity \"restricted:latest\""));
  const std::string values = dir_->File("values.yaml");
  std::ofstream(values) << "scheduler:\n  mode: shadow\n  replica: 3\ncarbon:\n  replicas: two\n";
  absl::StatusOr<std::string> installed = plane_->Helm(
      absl::StrCat("install carbonroute ", Chart(), " --namespace ", ns, " -f ", values));
  ASSERT_FALSE(installed.ok());
  EXPECT_THAT(installed.status().message(),
              HasSubstr("at '/scheduler': additional properties 'replica' not allowed"));
  EXPECT_THAT(installed.status().message(), HasSubstr("at '/carbon/replicas': got string"));
  EXPECT_THAT(plane_->Helm("list --namespace " + ns + " -q").value_or("?"), IsEmpty());
  EXPECT_THAT(Leftovers(ns), IsEmpty());
}

// The carbon role's configuration with both live providers on (credentials from a Secret):
// the collector accepts it, and it is only the cluster it lacks here (exit 3).
TEST_F(HelmChartOnTheRealControlPlane, TheLiveProvidersConfigurationIsOneTheCollectorAccepts) {
  absl::StatusOr<std::string> rendered = testing::RenderChart(
      *plane_,
      "--set carbon.watttime.enabled=true --set carbon.electricityMaps.enabled=true"
      " --set carbon.credentials.existingSecret=my-credentials"
      " --show-only templates/collector-carbon-role.yaml");
  ASSERT_TRUE(rendered.ok()) << rendered.status();
  EXPECT_THAT(*rendered, HasSubstr("secretName: my-credentials"));
  EXPECT_THAT(*rendered, ::testing::Not(HasSubstr("kind: Secret\n")));
  EXPECT_THAT(*rendered, ::testing::Not(HasSubstr("type: replay")));
  const std::string config = testing::ConfigMapFile(*rendered, "collector.yaml");
  EXPECT_THAT(config, HasSubstr("type: watttime"));
  EXPECT_THAT(config, HasSubstr("type: electricity_maps"));
  EXPECT_THAT(config, HasSubstr("account_shared_by: 2"));
  const std::string file = dir_->File("live-collector.yaml");
  std::ofstream(file) << config;
  const testing::ShellRun run = testing::Shell(absl::StrCat(
      "env -u KUBERNETES_SERVICE_HOST -u KUBERNETES_SERVICE_PORT -u KUBECONFIG HOME=", dir_->path(),
      " ", CARBONROUTE_COLLECTOR_BINARY, " --check-config ", file, " 2>&1"));
  EXPECT_EQ(run.exit_code, 3) << run.output << config;
  EXPECT_THAT(run.output, HasSubstr("not available here (exit 3)"));
}

}  // namespace
}  // namespace carbonroute
