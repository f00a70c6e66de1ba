// The shipped RBAC on the real API server: deploy/kubernetes applied with the
// built kubectl (`apply --server-side -k`, by SharedControlPlane), then each
// component run with a token of its own shipped ServiceAccount: the node
// collector (carbonroute-collector), the carbon role (carbonroute-carbon),
// serve finding the collectors through the API (carbonroute-extender), hold
// (carbonroute-hold) and the second kube-scheduler with the shipped configuration
// (carbonroute-scheduler: its Lease carbonroute-scheduler, which
// system:kube-scheduler does not cover, through the shipped Role). No request of theirs is refused
// (403), here and over the whole tier (checked when each cluster test binary ends,
// test/testing/real_control_plane.cc). With one verb taken from hold's role,
// its log names the rule that is missing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "test/cluster/cluster_test_support.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/real_control_plane.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;
using testing::RealControlPlane;
using testing::SchedulerLite;

// Requests by `user` since audit event `from`: how many, and how many refused.
std::pair<int, int> RequestsOf(const RealControlPlane& plane, const std::string& user,
                               size_t from) {
  const std::vector<testing::AuditEvent> audit = plane.Audit();
  int all = 0, refused = 0;
  for (size_t i = from; i < audit.size(); ++i) {
    if (audit[i].user != user) continue;
    ++all;
    refused += audit[i].code == 403;
  }
  return {all, refused};
}

TEST(ShippedRbacOnTheRealApiServer, EachComponentRunsWithItsOwnServiceAccountUnrefused) {
  testing::ScopedTempDir dir;
  RealControlPlane& plane = testing::SharedControlPlane();
  const size_t from = plane.Audit().size();
  // The node collector of the DaemonSet: discovers its peers, the Nodes, through the API.
  absl::StatusOr<std::string> node_role =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-collector");
  ASSERT_TRUE(node_role.ok()) << node_role.status();
  testing::CollectorProcess node_collector = testing::StartCollector(dir.path(),
                                                                     absl::StrFormat(R"yaml(
listen_address: 127.0.0.1:0
database: ":memory:"
node: {name: n-de}
rtt:
  discovery:
    kubernetes: {kubeconfig: %s}
providers: [{type: static, values: {DE: 380}}]
)yaml",
                                                                                     *node_role),
                                                                     "node-collector.log");
  ASSERT_GT(node_collector.port, 0) << node_collector.process->Log();
  testing::CollectorProcess carbon = testing::StartCarbonRole(plane, dir.path());
  ASSERT_GT(carbon.port, 0) << carbon.process->Log();
  // serve as the Deployment runs it: the collectors' Pods found through the API.
  absl::StatusOr<std::string> scheduler =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-extender");
  ASSERT_TRUE(scheduler.ok()) << scheduler.status();
  const int serve_port = testing::FreeLoopbackPort();
  testing::Subprocess serve(
      SchedulerLite({"serve", absl::StrCat("--web.listen-address=127.0.0.1:", serve_port),
                     "--kubeconfig=" + *scheduler, "--collector-pods=app=carbonroute-collector",
                     "--collector-pods=app=carbonroute-carbon", "--collector-namespace=carbonroute",
                     "--refresh=2s"}),
      dir.File("serve.log"));
  absl::StatusOr<std::string> hold_role =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-hold");
  ASSERT_TRUE(hold_role.ok()) << hold_role.status();
  const int hold_port = testing::FreeLoopbackPort();
  testing::Subprocess hold(
      SchedulerLite({"hold", "--kubeconfig=" + *hold_role,
                     absl::StrCat("--collector=http://127.0.0.1:", carbon.port),
                     absl::StrCat("--web.listen-address=127.0.0.1:", hold_port), "--resync=2s",
                     "--lease-namespace=carbonroute", "--identity=rbac-test"}),
      dir.File("hold.log"));
  // The second kube-scheduler with the shipped configuration, leader election on: it takes
  // the Lease carbonroute-scheduler in its namespace as its own ServiceAccount.
  absl::StatusOr<std::string> kube_scheduler_role =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-scheduler");
  ASSERT_TRUE(kube_scheduler_role.ok()) << kube_scheduler_role.status();
  const std::string shipped_config =
      testing::Field(plane, "configmap carbonroute-scheduler-config", "carbonroute",
                     "{.data.scheduler-config\\.yaml}");
  ASSERT_THAT(shipped_config, HasSubstr("resourceName: carbonroute-scheduler"));
  std::unique_ptr<testing::Subprocess> kube_scheduler =
      testing::StartKubeScheduler(plane, dir.path(), "kube-scheduler",
                                  absl::StrCat(shipped_config, "clientConnection: {kubeconfig: \"",
                                               *kube_scheduler_role, "\"}\n"));
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        return !testing::Field(plane, "lease carbonroute-scheduler", "carbonroute",
                               "{.spec.holderIdentity}")
                    .empty();
      },
      absl::Seconds(60)))
      << kube_scheduler->Log();
  // Each has listed and watched what it reads: hold healthy (its lists answered and its
  // Lease held), serve's Pod and Node watches running, the collectors' Node discovery done.
  EXPECT_TRUE(testing::WaitFor([&] { return testing::IsHealthy(hold_port); }, absl::Seconds(60)))
      << hold.Log();
  const std::map<std::string, std::string> users = {{"carbonroute-collector", "node collector"},
                                                    {"carbonroute-carbon", "carbon role"},
                                                    {"carbonroute-extender", "serve"},
                                                    {"carbonroute-scheduler", "kube-scheduler"},
                                                    {"carbonroute-hold", "hold"}};
  for (const auto& [account, what] : users) {
    const std::string user = RealControlPlane::ServiceAccountUser("carbonroute", account);
    // (A watch is logged when it ends: the lists are what is there to count.)
    EXPECT_TRUE(testing::WaitFor([&] { return RequestsOf(plane, user, from).first >= 1; },
                                 absl::Seconds(60)))
        << what << " made no request as " << user;
    EXPECT_EQ(RequestsOf(plane, user, from).second, 0) << what << " was refused as " << user;
  }
  EXPECT_EQ(hold.Terminate(), 0) << hold.Log();
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
  kube_scheduler->Terminate();
}

// `kubectl apply -k deploy/kubernetes` (SharedControlPlane's) into its Namespace, which enforces
// Pod Security "restricted": admission refuses none of the base's Pods, and every workload is
// ready on kwok's Nodes.
TEST(ShippedManifestsOnTheRealApiServer, EveryWorkloadIsAdmittedUnderRestrictedAndReady) {
  RealControlPlane& plane = testing::SharedControlPlane();
  EXPECT_EQ(plane
                .Kubectl("get namespace carbonroute -o "
                         "jsonpath='{.metadata.labels.pod-security\\.kubernetes\\.io/enforce}'")
                .value_or(""),
            "restricted");
  for (const std::string workload :
       {"daemonset/carbonroute-collector", "deployment/carbonroute-carbon",
        "deployment/carbonroute-scheduler", "deployment/carbonroute-extender",
        "deployment/carbonroute-hold"}) {
    std::string readiness;
    EXPECT_TRUE(testing::WaitFor(
        [&] {
          readiness = testing::Readiness(plane, "carbonroute", workload);
          const std::vector<std::string> parts = absl::StrSplit(readiness, '/');
          return parts.size() == 2 && parts[0] == parts[1] && parts[1] != "0";
        },
        absl::Seconds(60)))
        << workload << ": " << readiness;
  }
  absl::StatusOr<std::string> failed = plane.Kubectl(
      "get events -n carbonroute --field-selector reason=FailedCreate -o custom-columns=M:.message "
      "--no-headers");
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_EQ(*failed, "");
}

// hold's ClusterRole without `patch` on Jobs, bound to a ServiceAccount of its own: the
// release is refused, and hold's log names the verb, the resource and the rule to add.
TEST(ShippedRbacOnTheRealApiServer, AComponentMissingAVerbNamesTheRule) {
  testing::ScopedTempDir dir;
  RealControlPlane& plane = testing::SharedControlPlane();
  const std::string ns = plane.NewNamespace();
  absl::StatusOr<std::string> role = plane.Kubectl("get clusterrole carbonroute-hold -o json");
  ASSERT_TRUE(role.ok()) << role.status();
  ASSERT_THAT(*role, HasSubstr("\"patch\""));
  ASSERT_TRUE(plane
                  .Apply(absl::StrCat(R"(apiVersion: v1
kind: ServiceAccount
metadata: {name: hold-without-patch, namespace: )",
                                      ns, R"(}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: )",
                                      ns, R"(-hold-without-patch}
rules:
  - {apiGroups: [batch], resources: [jobs], verbs: [get, list, watch]}
  - {apiGroups: [""], resources: [pods], verbs: [get, list, watch, patch]}
  - {apiGroups: [""], resources: [events], verbs: [create]}
  - {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: )",
                                      ns, R"(-hold-without-patch}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: )",
                                      ns,
                                      R"(-hold-without-patch}
subjects: [{kind: ServiceAccount, name: hold-without-patch, namespace: )",
                                      ns, R"(}]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: report
  namespace: )",
                                      ns, R"(
  labels: {carbonroute.io/defer: "true"}
  annotations: {carbonroute.io/deadline: "1m", carbonroute.io/expected-runtime: "10s"}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: work, image: busybox}]
)"))
                  .ok());
  absl::StatusOr<std::string> kubeconfig = plane.ServiceAccountKubeconfig(ns, "hold-without-patch");
  ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.status();
  // No collector answers: the Job is released at once (no_forecast), which needs the patch.
  testing::Subprocess hold(
      SchedulerLite({"hold", "--kubeconfig=" + *kubeconfig, "--collector=http://127.0.0.1:1",
                     "--web.listen-address=127.0.0.1:0", "--resync=2s", "--lease-namespace=" + ns,
                     "--identity=rbac-test"}),
      dir.File("hold.log"));
  // The log line is logfmt: its message's quotes are escaped.
  auto log = [&] { return absl::StrReplaceAll(hold.Log(), {{"\\\"", "\""}}); };
  ASSERT_TRUE(testing::WaitFor([&] { return absl::StrContains(log(), "verbs: [\"patch\"]"); },
                               absl::Seconds(60)))
      << hold.Log();
  EXPECT_THAT(log(), HasSubstr("HTTP 403"));
  EXPECT_THAT(log(),
              HasSubstr("{apiGroups: [\"batch\"], resources: [\"jobs\"], verbs: [\"patch\"]}"));
  // The audit log holds the refusals under that identity: what the whole tier's check reads.
  EXPECT_GT(
      RequestsOf(plane, RealControlPlane::ServiceAccountUser(ns, "hold-without-patch"), 0).second,
      0);
  hold.Terminate();
  plane.Kubectl(absl::StrCat("delete clusterrolebinding,clusterrole ", ns, "-hold-without-patch"))
      .IgnoreError();
}

}  // namespace
}  // namespace carbonroute
