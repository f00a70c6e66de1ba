// Re-placement on the real control plane: `scheduler-lite rebalance --controller` with the token
// of its shipped ServiceAccount (deploy/kubernetes/rebalance), kube-scheduler with the shipped
// profile and carbonroute's extender (`serve`), the real Deployment and ReplicaSet controllers
// and disruption controller, kwok's Nodes in Belgium, Germany and France. The grid flips by
// restarting the carbon role's collector on the same port with other static values (SIGHUP
// reloads only rtt.peers). The web Deployment's Pods become Ready 4 s after they are bound (a
// kwok Stage of this binary), so its PodDisruptionBudget (maxUnavailable: 1) refuses an eviction
// while a replacement is not Ready yet.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "test/cluster/cluster_test_support.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/real_control_plane.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using testing::Field;
using ::testing::HasSubstr;
using testing::RealControlPlane;

constexpr char kReadyDelayAnnotation[] = "carbonroute.io/test-ready-delay";

// The Stages scripts/cluster built for kwok, with Pods annotated kReadyDelayAnnotation made
// Ready that long after they are bound instead of at once (kwok's own pod-ready Stage, with a
// delay and without jitter).
std::string DelayedReadyStages(const std::string& dir) {
  std::string shipped;
  const testing::ShellRun bin =
      testing::Shell(absl::StrCat(CARBONROUTE_SOURCE_DIR, "/scripts/cluster bin"));
  for (absl::string_view folder : absl::StrSplit(bin.output, '\n', absl::SkipEmpty())) {
    if (absl::StrContains(folder, "/kwok-v")) {
      shipped = testing::ReadFile(absl::StrCat(folder, "/stages.yaml"));
    }
  }
  EXPECT_THAT(shipped, HasSubstr("name: pod-ready\n")) << bin.output;
  // The fast pod-ready Stage leaves the annotated Pods alone ...
  const std::string selector =
      "    - key: '.status.conditions.[] | select( .type == \"Ready\" ) | .status'\n"
      "      operator: 'NotIn'\n"
      "      values:\n"
      "      - 'True'\n";
  EXPECT_THAT(shipped, HasSubstr(selector));
  std::string stages = absl::StrReplaceAll(
      shipped, {{selector, absl::StrCat(selector, "    - key: '.metadata.annotations[\"",
                                        kReadyDelayAnnotation, "\"]'\n",
                                        "      operator: 'DoesNotExist'\n")}});
  // ... and this one makes them Ready after the annotation's delay.
  const std::size_t begin = shipped.find("name: pod-ready\n");
  const std::size_t start = shipped.rfind("apiVersion:", begin);
  const std::size_t end = shipped.find("\n---", begin);
  std::string delayed = shipped.substr(start, end == std::string::npos ? end : end - start);
  delayed = absl::StrReplaceAll(
      delayed,
      {{"name: pod-ready\n", "name: pod-ready-delayed\n"},
       {selector, absl::StrCat(selector, "    - key: '.metadata.annotations[\"",
                               kReadyDelayAnnotation, "\"]'\n", "      operator: 'Exists'\n")},
       {"  next:\n", absl::StrCat("  delay:\n    durationMilliseconds: 1000\n    durationFrom:\n"
                                  "      expressionFrom: '.metadata.annotations[\"",
                                  kReadyDelayAnnotation, "\"]'\n  next:\n")}});
  std::string file = dir + "/stages.yaml";
  std::ofstream(file) << stages << "\n---\n" << delayed << "\n";
  return file;
}

std::string Workloads(const std::string& ns) {
  return absl::StrCat(R"yaml(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: )yaml",
                      ns, R"yaml(, labels: {tier: web}}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations: {")yaml",
                      kReadyDelayAnnotation, R"yaml(": "4s"}
    spec:
      schedulerName: carbonroute
      containers:
        - {name: web, image: busybox:1.36, resources: {requests: {cpu: 100m, memory: 128Mi}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: )yaml",
                      ns, R"yaml(}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: pinned, namespace: )yaml",
                      ns, R"yaml(, labels: {tier: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: pinned}}
  template:
    metadata:
      labels: {app: pinned, delay_europe-west3: "6"}
    spec:
      schedulerName: carbonroute
      containers:
        - {name: pinned, image: busybox:1.36, resources: {requests: {cpu: 100m, memory: 128Mi}}}
---
apiVersion: carbonroute.io/v1alpha1
kind: CarbonRebalancePolicy
metadata: {name: web, namespace: )yaml",
                      ns, R"yaml(}
spec:
  selector: {matchLabels: {tier: web}}
  carbonToleranceGramsPerKwh: 50
  minStay: 15s
  horizon: 1h
  maxMovesPerPeriod: 10
  period: 1h
  joulesPerStart: 100
)yaml");
}

class RebalanceOnTheRealControlPlane : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stages_dir_ = new testing::ScopedTempDir;
    setenv("CARBONROUTE_KWOK_STAGES", DelayedReadyStages(stages_dir_->path()).c_str(), 1);
    RealControlPlane& plane = testing::SharedControlPlane();
    for (const std::string& args :
         {absl::StrCat("apply --server-side -k ", CARBONROUTE_SOURCE_DIR,
                       "/deploy/kubernetes/rebalance"),
          std::string("wait --for condition=Established crd --all --timeout=60s")}) {
      const absl::StatusOr<std::string> done = plane.Kubectl(args);
      EXPECT_TRUE(done.ok()) << done.status();
    }
  }
  static void TearDownTestSuite() { delete stages_dir_; }
  void TearDown() override {
    plane_.Kubectl("delete namespace --wait=false " + namespace_).IgnoreError();
  }

  // scheduler-lite rebalance --controller as the shipped Deployment runs it, every 2 s.
  std::unique_ptr<testing::Subprocess> StartRebalance(int port, int collector_port, bool dry_run,
                                                      const std::string& log) {
    absl::StatusOr<std::string> kubeconfig =
        plane_.ServiceAccountKubeconfig("carbonroute", "carbonroute-rebalance");
    EXPECT_TRUE(kubeconfig.ok()) << kubeconfig.status();
    std::vector<std::string> argv = {
        CARBONROUTE_SCHEDULER_LITE_BINARY,
        "rebalance",
        "--controller",
        "--resync=2s",
        absl::StrCat("--web.listen-address=127.0.0.1:", port),
        "--kubeconfig=" + kubeconfig.value_or(""),
        "--lease-namespace=carbonroute",
        "--lease-name=carbonroute-rebalance-" + namespace_,
        "--identity=rebalance-test",
        absl::StrCat("--metrics=http://127.0.0.1:", collector_port, "/metrics"),
        absl::StrCat("--data-dir=", CARBONROUTE_SOURCE_DIR, "/data")};
    if (dry_run) argv.push_back("--dry-run");
    auto process = std::make_unique<testing::Subprocess>(argv, dir_.File(log));
    EXPECT_TRUE(testing::WaitFor([&] { return testing::IsHealthy(port); }, absl::Seconds(60)))
        << process->Log();
    return process;
  }
  std::string NodesOf(const std::string& app) {
    return Field(plane_, "pods -l app=" + app, namespace_, "{.items[*].spec.nodeName}");
  }
  double Evictions(int port, const std::string& result) {
    const double value = testing::SeriesValue(
        testing::HttpGet(port, "/metrics"),
        {"carbonroute_rebalance_evictions_total{", "result=\"" + result + "\""});
    return std::isnan(value) ? 0 : value;
  }
  std::string Elapsed() const {
    return absl::StrFormat("%6.1fs", absl::ToDoubleSeconds(absl::Now() - start_));
  }

  static testing::ScopedTempDir* stages_dir_;
  testing::ScopedTempDir dir_;
  RealControlPlane& plane_ = testing::SharedControlPlane();
  std::string namespace_ = plane_.NewNamespace();
  absl::Time start_ = absl::Now();
};
testing::ScopedTempDir* RebalanceOnTheRealControlPlane::stages_dir_ = nullptr;

// The whole life: the Pods are bound in Germany while it is the cleanest; a flip to France and
// back within minStay moves nothing; --dry-run says what it would evict and evicts nothing; then
// the controller evicts web's three Pods one by one, the ReplicaSet controller makes each
// replacement and kube-scheduler binds it in France through the extender, the PDB refuses an
// eviction while a replacement is not Ready and is never exceeded, and pinned (delay_europe-west3
// of 6 ms: only Germany meets it) stays. The audit log: the controller wrote only evictions,
// Events, its Lease and its policy's status.
TEST_F(RebalanceOnTheRealControlPlane, MovesRunningPodsToTheCleanGridWithinLimitsAndBudgets) {
  const int collector_port = testing::FreeLoopbackPort();
  int collector_starts = 0;
  auto grid = std::make_unique<testing::CollectorProcess>(
      testing::StartCarbonRole(plane_, dir_.path(), {150, 30, 300}, collector_port,
                               absl::StrCat("carbon-", collector_starts++, ".log")));
  ASSERT_GT(grid->port, 0) << grid->process->Log();
  auto flip = [&](double be, double de, double fr) {
    grid->process->Terminate();
    grid = std::make_unique<testing::CollectorProcess>(
        testing::StartCarbonRole(plane_, dir_.path(), {be, de, fr}, collector_port,
                                 absl::StrCat("carbon-", collector_starts++, ".log")));
    ASSERT_GT(grid->port, 0) << grid->process->Log();
    std::printf("%s grid: BE %g, DE %g, FR %g gCO2eq/kWh\n", Elapsed().c_str(), be, de, fr);
  };
  const int serve_port = testing::FreeLoopbackPort();
  std::unique_ptr<testing::Subprocess> serve =
      testing::StartServe(plane_, dir_.path(), serve_port, collector_port);
  std::unique_ptr<testing::Subprocess> scheduler =
      testing::StartKubeScheduler(plane_, dir_.path(), "kube-scheduler-" + namespace_,
                                  testing::ShippedSchedulerConfig(plane_, serve_port, true, true));
  ASSERT_TRUE(plane_.Apply(Workloads(namespace_)).ok());
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return NodesOf("web") == "n-de n-de n-de" &&
               testing::Readiness(plane_, namespace_, "deployment/web") == "3/3";
      },
      absl::Seconds(90)))
      << NodesOf("web") << scheduler->Log();
  ASSERT_EQ(NodesOf("pinned"), "n-de");
  const std::string pinned_uid =
      Field(plane_, "pods -l app=pinned", namespace_, "{.items[0].metadata.uid}");
  const size_t audit_before = plane_.Audit().size();

  // 1. France cleaner for 5 s, then Germany again: within minStay (15 s), nothing moves.
  const int port = testing::FreeLoopbackPort();
  {
    std::unique_ptr<testing::Subprocess> controller =
        StartRebalance(port, collector_port, false, "rebalance-1.log");
    flip(150, 380, 56);
    absl::SleepFor(absl::Seconds(5));
    flip(150, 30, 300);
    absl::SleepFor(absl::Seconds(20));
    EXPECT_EQ(Evictions(port, "evicted"), 0) << controller->Log();
    EXPECT_EQ(NodesOf("web"), "n-de n-de n-de");
    controller->Terminate();
  }
  // 2. France cleaner for good; --dry-run: an Event and the shadow ledger, no eviction.
  flip(150, 380, 56);
  const std::string status_before =
      Field(plane_, "carbonrebalancepolicy web", namespace_, "{.status}");
  {
    std::unique_ptr<testing::Subprocess> dry =
        StartRebalance(port, collector_port, true, "dry.log");
    EXPECT_TRUE(
        testing::WaitFor([&] { return Evictions(port, "would_evict") >= 1; }, absl::Seconds(60)))
        << dry->Log();
    absl::SleepFor(absl::Seconds(4));
    EXPECT_EQ(Evictions(port, "evicted"), 0);
    EXPECT_EQ(NodesOf("web"), "n-de n-de n-de");
    EXPECT_THAT(testing::EventsOf(plane_, namespace_, "Deployment", "web"),
                HasSubstr("CarbonRebalanceWouldEvict"));
    EXPECT_EQ(Field(plane_, "carbonrebalancepolicy web", namespace_, "{.status}"), status_before)
        << "a dry run writes no status";
    dry->Terminate();
    std::printf("%s dry run: would evict, evicted nothing\n", Elapsed().c_str());
  }
  // 3. The controller moves web to France; the PDB is watched all along.
  std::unique_ptr<testing::Subprocess> controller =
      StartRebalance(port, collector_port, false, "rebalance-2.log");
  std::printf("%s rebalance --controller started\n", Elapsed().c_str());
  int least_healthy = 3;
  std::string last_nodes = NodesOf("web");
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        const std::string healthy =
            Field(plane_, "pdb web", namespace_, "{.status.currentHealthy}");
        if (!healthy.empty()) least_healthy = std::min(least_healthy, std::stoi(healthy));
        const std::string nodes = NodesOf("web");
        if (nodes != last_nodes) {
          std::printf("%s web's Pods on: %s (PDB healthy %s)\n", Elapsed().c_str(), nodes.c_str(),
                      healthy.c_str());
          last_nodes = nodes;
        }
        return nodes == "n-fr n-fr n-fr" &&
               testing::Readiness(plane_, namespace_, "deployment/web") == "3/3";
      },
      absl::Seconds(180)))
      << NodesOf("web") << controller->Log() << scheduler->Log();
  EXPECT_GE(least_healthy, 2) << "the PodDisruptionBudget was exceeded";
  EXPECT_EQ(Evictions(port, "evicted"), 3) << controller->Log();
  EXPECT_GE(Evictions(port, "blocked_by_pdb"), 1) << controller->Log();
  const std::string events = testing::EventsOf(plane_, namespace_, "Deployment", "web");
  EXPECT_THAT(events, HasSubstr("CarbonRebalanceEvicted"));
  EXPECT_THAT(events, HasSubstr("CarbonRebalanceReplaced"));
  EXPECT_THAT(events, HasSubstr("CarbonRebalanceBlockedByPDB"));
  std::printf("%s events on deployment/web:\n%s", Elapsed().c_str(), events.c_str());
  // pinned's limit is met only in Germany: the same Pod, never evicted.
  EXPECT_EQ(Field(plane_, "pods -l app=pinned", namespace_, "{.items[0].metadata.uid}"),
            pinned_uid);
  EXPECT_EQ(NodesOf("pinned"), "n-de");
  // The status and the ledger: three moves, each a restart (100 J at France's 56) and a stay
  // priced at France against Germany.
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        return Field(plane_, "carbonrebalancepolicy web", namespace_, "{.status.moves}") == "3";
      },
      absl::Seconds(20)));
  const std::string page = testing::HttpGet(port, "/metrics");
  const std::string in_ns = "namespace=\"" + namespace_ + "\"";
  EXPECT_EQ(testing::SeriesValue(page, {"carbonroute_ledger_decisions_total{",
                                        "controller=\"rebalance\"", "outcome=\"moved\"", in_ns}),
            3);
  const double chosen =
      testing::SeriesValue(page, {"carbonroute_ledger_emissions_grams_total{", "basis=\"chosen\"",
                                  "controller=\"rebalance\"", in_ns});
  const double counterfactual =
      testing::SeriesValue(page, {"carbonroute_ledger_emissions_grams_total{",
                                  "basis=\"counterfactual\"", "controller=\"rebalance\"", in_ns});
  const double restarts =
      testing::SeriesValue(page, {"carbonroute_ledger_energy_joules_total{",
                                  "controller=\"rebalance\"", "energy_source=\"declared\"", in_ns});
  const double stays =
      testing::SeriesValue(page, {"carbonroute_ledger_energy_joules_total{",
                                  "controller=\"rebalance\"", "energy_source=\"model\"", in_ns});
  std::printf("ledger: restarts %g J, stays %g J; chosen %.6f g, counterfactual %.6f g\n%s",
              restarts, stays, chosen, counterfactual, controller->Log().c_str());
  // By hand: three restarts of 100 J at France (56) against nothing; the stays at France
  // against Germany (380).
  EXPECT_EQ(restarts, 300);
  EXPECT_NEAR(chosen, (restarts + stays) / 3.6e6 * testing::kFrance, 1e-9);
  EXPECT_NEAR(counterfactual, stays / 3.6e6 * testing::kGermany, 1e-9);
  EXPECT_EQ(controller->Terminate(), 0) << controller->Log();

  // The audit log: the controller's identity wrote evictions, Events, its Lease and its
  // policy's status; no delete, no patch of a workload or a Pod.
  const std::string user =
      RealControlPlane::ServiceAccountUser("carbonroute", "carbonroute-rebalance");
  const std::set<std::string> writes = {"create", "update", "patch", "delete", "deletecollection"};
  int evictions = 0;
  const std::vector<testing::AuditEvent> audit = plane_.Audit();
  for (size_t i = audit_before; i < audit.size(); ++i) {
    const testing::AuditEvent& event = audit[i];
    if (event.user != user || !writes.contains(event.verb)) continue;
    const std::string what = absl::StrCat(event.verb, " ", event.resource,
                                          event.subresource.empty() ? "" : "/", event.subresource);
    if (what == "create pods/eviction") {
      ++evictions;
      continue;
    }
    EXPECT_TRUE(what == "create events" || what == "create leases" || what == "update leases" ||
                what == "patch carbonrebalancepolicies/status")
        << what << " " << event.namespace_name << "/" << event.name;
  }
  // Three evictions made and at least one refused (429).
  EXPECT_GE(evictions, 4);
  grid->process->Terminate();
}

}  // namespace
}  // namespace carbonroute
