// Watches as a real API server ends them. This binary's control plane runs
// kube-apiserver with --watch-cache=false (every watch is served by etcd, as
// the watch cache would otherwise hide compaction) and
// --etcd-compaction-interval=2s, and every carbonroute watch here asks for a
// 2 s timeoutSeconds: each watch the server ends resumes from a version that
// is soon compacted, so the next one is refused with 410 Gone (an ERROR event)
// and the component lists again. Through that churn: no Node or object is
// missed, none is counted twice, no object is written twice for one decision,
// and the lists stay bounded by the watch timeout (no busy relist loop).
// Counts come from the audit log (test/testing/real_control_plane.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
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

constexpr absl::Duration kWatchTimeout = absl::Seconds(2);
constexpr absl::Duration kQuiet = absl::Seconds(12);  // a stretch with no change at all

RealControlPlane& CompactingPlane() {
  static RealControlPlane* plane = [] {
    // Read by scripts/cluster up when SharedControlPlane starts it.
    setenv("CARBONROUTE_APISERVER_FLAGS", "--watch-cache=false --etcd-compaction-interval=2s",
           /*overwrite=*/1);
    return &testing::SharedControlPlane();
  }();
  return *plane;
}

struct Requests {
  int lists = 0, watches = 0;
};

// `user`'s list and watch requests of `resource` from audit event `from` on.
Requests RequestsOf(const RealControlPlane& plane, const std::string& user,
                    const std::string& resource, size_t from) {
  const std::vector<testing::AuditEvent> audit = plane.Audit();
  Requests requests;
  for (size_t i = from; i < audit.size(); ++i) {
    if (audit[i].user != user || audit[i].resource != resource) continue;
    requests.lists += audit[i].verb == "list";
    requests.watches += audit[i].verb == "watch";
  }
  return requests;
}

// `user`'s writes (patch, update) of `resource` `name`, not its status, from audit event `from`.
int WritesOf(const RealControlPlane& plane, const std::string& user, const std::string& resource,
             const std::string& name, size_t from) {
  const std::vector<testing::AuditEvent> audit = plane.Audit();
  int writes = 0;
  for (size_t i = from; i < audit.size(); ++i) {
    const testing::AuditEvent& e = audit[i];
    writes += e.user == user && e.resource == resource && e.name == name && e.subresource.empty() &&
              (e.verb == "patch" || e.verb == "update");
  }
  return writes;
}

// Lets `kQuiet` pass with nothing changing (the clock, not a timing assertion: the lists
// counted over it are bounded by the watch timeout, whatever the machine's speed), and
// checks that `user` listed `resource` again in it (the 410s) but no more often than once
// per watch timeout, plus one.
void ExpectRelistsWithoutABusyLoop(const RealControlPlane& plane, const std::string& user,
                                   const std::string& resource) {
  const size_t from = plane.Audit().size();
  const absl::Time start = absl::Now();
  testing::WaitFor([] { return false; }, kQuiet);
  const double elapsed = absl::ToDoubleSeconds(absl::Now() - start);
  const Requests quiet = RequestsOf(plane, user, resource, from);
  EXPECT_GE(quiet.lists, 1) << user << ": no list again in " << elapsed
                            << " s of expiring watches (no 410 seen?)";
  EXPECT_LE(quiet.lists, elapsed / absl::ToDoubleSeconds(kWatchTimeout) + 1)
      << user << " listed " << resource << " " << quiet.lists << " times in " << elapsed << " s";
  EXPECT_GE(quiet.watches, quiet.lists) << user;
}

std::string NodeYaml(const std::string& name, const std::string& region) {
  return absl::StrFormat(R"(apiVersion: v1
kind: Node
metadata:
  name: %1$s
  annotations: {kwok.x-k8s.io/node: fake}
  labels: {kubernetes.io/hostname: %1$s, topology.kubernetes.io/region: %2$s}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "250"}
  capacity: {cpu: "8", memory: 32Gi, pods: "250"}
)",
                         name, region);
}

// The probe targets on a collector's page: the discovered Nodes, each once.
std::multiset<std::string> ProbeTargets(int port) {
  std::multiset<std::string> targets;
  for (absl::string_view line : absl::StrSplit(testing::HttpGet(port, "/metrics"), '\n')) {
    if (!absl::StartsWith(line, "carbonroute_probe_sent_total{")) continue;
    const size_t at = line.find("target=\"");
    if (at == absl::string_view::npos) continue;
    const absl::string_view rest = line.substr(at + 8);
    targets.insert(std::string(rest.substr(0, rest.find('"'))));
  }
  return targets;
}

// d. The collector's Node discovery (a list-watch of its own): every Node added or deleted
// between expired watches is seen, each once.
TEST(WatchesEndedByTheServer, CollectorNodeDiscoveryMissesNoNodeAndCountsNoneTwice) {
  testing::ScopedTempDir dir;
  RealControlPlane& plane = CompactingPlane();
  absl::StatusOr<std::string> kubeconfig =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-collector");
  ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.status();
  testing::CollectorProcess collector = testing::StartCollector(dir.path(),
                                                                absl::StrFormat(R"yaml(
listen_address: 127.0.0.1:0
database: ":memory:"
node: {name: n-be}
rtt:
  discovery:
    kubernetes: {kubeconfig: %s, watch_timeout: 2s}
  peer_selection: {mode: all}
providers: [{type: static, values: {BE: 150}}]
)yaml",
                                                                                *kubeconfig),
                                                                "collector.log");
  ASSERT_GT(collector.port, 0);
  const std::string user =
      RealControlPlane::ServiceAccountUser("carbonroute", "carbonroute-collector");
  const std::multiset<std::string> three = {"n-de", "n-fr"};  // its peers: every other Node
  ASSERT_TRUE(
      testing::WaitFor([&] { return ProbeTargets(collector.port) == three; }, absl::Seconds(30)))
      << collector.process->Log();
  ExpectRelistsWithoutABusyLoop(plane, user, "nodes");
  ASSERT_TRUE(plane.Apply(NodeYaml("n-x1", "europe-west1")).ok());
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return ProbeTargets(collector.port) == std::multiset<std::string>{"n-de", "n-fr", "n-x1"};
      },
      absl::Seconds(20)))
      << collector.process->Log();
  ExpectRelistsWithoutABusyLoop(plane, user, "nodes");
  ASSERT_TRUE(plane.Kubectl("delete node n-x1").ok());
  ASSERT_TRUE(plane.Apply(NodeYaml("n-x2", "europe-west3")).ok());
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        return ProbeTargets(collector.port) == std::multiset<std::string>{"n-de", "n-fr", "n-x2"};
      },
      absl::Seconds(20)))
      << collector.process->Log();
  // The log names the expiries it listed again after.
  EXPECT_THAT(collector.process->Log(), HasSubstr("code 410"));
  plane.Kubectl("delete node n-x2").IgnoreError();
}

// scheduler-lite `args` with this binary's watch timeout; every list but the first comes
// from a watch (resync is an hour).
std::vector<std::string> SchedulerLiteWatching(std::vector<std::string> args) {
  args.push_back(absl::StrCat("--watch-timeout=", absl::FormatDuration(kWatchTimeout)));
  args.push_back("--resync=1h");
  return testing::SchedulerLite(args);
}

std::string HeldJobYaml(const std::string& namespace_name, const std::string& name) {
  return absl::StrFormat(R"(apiVersion: batch/v1
kind: Job
metadata:
  name: %s
  namespace: %s
  labels: {carbonroute.io/defer: "true"}
  annotations: {carbonroute.io/deadline: 5m, carbonroute.io/expected-runtime: 10s,
                carbonroute.io/locations: FR}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: work, image: registry.invalid/work}]
)",
                         name, namespace_name);
}

// d. hold's watches of Jobs and Pods: a Job created after the watches expired, and after
// their relists, is acted on within seconds (resync is an hour), and counted once.
TEST(WatchesEndedByTheServer, HoldActsOnEveryJobCreatedBetweenExpiriesAndCountsEachOnce) {
  testing::ScopedTempDir dir;
  RealControlPlane& plane = CompactingPlane();
  const std::string ns = plane.NewNamespace();
  testing::CollectorProcess carbon = testing::StartCarbonRole(plane, dir.path());
  ASSERT_GT(carbon.port, 0);
  absl::StatusOr<std::string> kubeconfig =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-hold");
  ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.status();
  const int metrics_port = testing::FreeLoopbackPort();
  testing::Subprocess hold(
      SchedulerLiteWatching({"hold", "--kubeconfig=" + *kubeconfig,
                             absl::StrCat("--collector=http://127.0.0.1:", carbon.port),
                             absl::StrCat("--web.listen-address=127.0.0.1:", metrics_port)}),
      dir.File("hold.log"));
  const std::string user = RealControlPlane::ServiceAccountUser("carbonroute", "carbonroute-hold");
  // The static carbon role's forecast is flat: each Job's clean window is now, so hold
  // releases it at once (one patch: suspend false).
  auto released = [&](const std::string& job) {
    return testing::Field(plane, "job " + job, ns, "{.spec.suspend}") == "false";
  };
  for (const char* job : {"first", "second", "third"}) {
    ExpectRelistsWithoutABusyLoop(plane, user, "jobs");
    ASSERT_TRUE(plane.Apply(HeldJobYaml(ns, job)).ok());
    ASSERT_TRUE(testing::WaitFor([&] { return released(job); }, absl::Seconds(10)))
        << job << " not released: " << hold.Log();
  }
  // Counted once each: three releases, each Job written once.
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        return testing::SeriesValue(
                   testing::HttpGet(metrics_port, "/metrics"),
                   {"carbonroute_hold_releases_total{", "kind=\"Job\"", "reason=\"window\""}) == 3;
      },
      absl::Seconds(10)))
      << testing::HttpGet(metrics_port, "/metrics");
  for (const char* job : {"first", "second", "third"}) {
    EXPECT_EQ(WritesOf(plane, user, "jobs", job, 0), 1) << job;
  }
  plane.Kubectl("delete namespace --wait=false " + ns).IgnoreError();
}

}  // namespace
}  // namespace carbonroute
