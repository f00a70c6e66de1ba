// serve --shadow beside the real default kube-scheduler, on the real API
// server, as the shipped ServiceAccount carbonroute-extender: the scheduler
// binds a Pod where its own scoring prefers (a preferred node affinity for
// Germany, 380 gCO2eq/kWh); serve's savings ledger books that binding
// against carbonroute's choice among the Nodes the Pod fits (France, 56); and
// the API server's audit log shows serve's identity made no create, update,
// patch or delete (Events and its Lease aside).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "test/cluster/cluster_test_support.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/real_control_plane.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using testing::Field;
using testing::RealControlPlane;

std::string PreferringGermany(const std::string& namespace_name, const std::string& name) {
  return absl::StrCat(R"(apiVersion: v1
kind: Pod
metadata:
  name: )",
                      name, "\n  namespace: ", namespace_name, R"(
spec:
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          preference:
            matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n-de]}]
  containers:
    - name: work
      image: busybox
      resources: {requests: {cpu: "2", memory: 4Gi}}
)");
}

TEST(ShadowModeOnTheRealApiServer, BooksTheDefaultSchedulersBindingsAndWritesNothing) {
  testing::ScopedTempDir dir;
  RealControlPlane& plane = testing::SharedControlPlane();
  const std::string shop = plane.NewNamespace(), other = plane.NewNamespace();
  testing::CollectorProcess collector = testing::StartCarbonRole(plane, dir.path());
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  absl::StatusOr<std::string> kubeconfig =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-extender");
  ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.status();
  const int port = testing::FreeLoopbackPort();
  testing::Subprocess serve(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "serve", "--shadow", "--namespaces=" + shop,
       absl::StrCat("--web.listen-address=127.0.0.1:", port), "--refresh=1s",
       "--kubeconfig=" + *kubeconfig,
       absl::StrCat("--metrics=http://127.0.0.1:", collector.port, "/metrics"),
       absl::StrCat("--data-dir=", CARBONROUTE_SOURCE_DIR, "/data")},
      dir.File("serve.log"));
  ASSERT_TRUE(testing::WaitFor(
      [&] { return absl::StrContains(testing::HttpGet(port, "/healthz"), "3 locations"); },
      absl::Seconds(60)))
      << serve.Log();
  const size_t audit_before = plane.Audit().size();

  // The default scheduler (schedulerName default-scheduler) binds both in Germany.
  ASSERT_TRUE(plane.Apply(PreferringGermany(shop, "web-1")).ok());
  ASSERT_TRUE(plane.Apply(PreferringGermany(other, "web-1")).ok());
  for (const std::string& ns : {shop, other}) {
    ASSERT_TRUE(testing::WaitFor(
        [&] { return Field(plane, "pod web-1", ns, "{.status.phase}") == "Running"; },
        absl::Seconds(60)));
    EXPECT_EQ(Field(plane, "pod web-1", ns, "{.spec.nodeName}"), "n-de");
  }
  double chosen = 0, counterfactual = 0;
  const std::string in_shop = "namespace=\"" + shop + "\"";
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        const std::string page = testing::HttpGet(port, "/metrics");
        chosen = testing::SeriesValue(page, {"carbonroute_ledger_emissions_grams_total{",
                                             "basis=\"chosen\"", "mode=\"shadow\"", in_shop});
        counterfactual =
            testing::SeriesValue(page, {"carbonroute_ledger_emissions_grams_total{",
                                        "basis=\"counterfactual\"", "mode=\"shadow\"", in_shop});
        return chosen > 0 && counterfactual > 0;
      },
      absl::Seconds(60)))
      << testing::HttpGet(port, "/metrics") << serve.Log();
  // France where carbonroute would have placed it against Germany where it runs.
  EXPECT_NEAR(counterfactual / chosen, testing::kGermany / testing::kFrance, 1e-6);
  const std::string page = testing::HttpGet(port, "/metrics");
  EXPECT_EQ(testing::SeriesValue(page, {"carbonroute_ledger_decisions_total{", "mode=\"shadow\"",
                                        "outcome=\"moved\"", in_shop}),
            1);
  EXPECT_TRUE(std::isnan(testing::SeriesValue(
      page, {"carbonroute_ledger_decisions_total{", "namespace=\"" + other + "\""})));
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();

  // The audit log: serve's identity read and watched, and wrote nothing.
  const std::string serve_user =
      RealControlPlane::ServiceAccountUser("carbonroute", "carbonroute-extender");
  const std::set<std::string> writes = {"create", "update", "patch", "delete", "deletecollection"};
  int reads = 0;
  const std::vector<testing::AuditEvent> audit = plane.Audit();
  for (size_t i = 0; i < audit.size(); ++i) {
    const testing::AuditEvent& event = audit[i];
    if (event.user != serve_user) continue;
    if (writes.count(event.verb) == 0) {
      reads += i >= audit_before;
      continue;
    }
    EXPECT_TRUE(event.resource == "events" || event.resource == "leases")
        << event.verb << " " << event.resource << " " << event.namespace_name << "/" << event.name;
  }
  EXPECT_GT(reads, 0) << "serve's requests are not in the audit log under " << serve_user;
}

}  // namespace
}  // namespace carbonroute
