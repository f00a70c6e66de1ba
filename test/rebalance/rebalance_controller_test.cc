#include "rebalance/rebalance_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kube/pod_eviction.h"
#include "test/testing/counter_value.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_clock.h"

namespace carbonroute::rebalance {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

// What the API server answers a PodDisruptionBudget's refusal and API Priority and Fairness'
// (k8s.io/kubernetes pkg/registry/core/pod/storage/eviction.go; apiserver's
// TooManyRequests).
const char kPdbRefusal[] =
    R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Cannot evict pod as it )"
    R"(would violate the pod's disruption budget.","reason":"TooManyRequests","details":)"
    R"({"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web needs 2 )"
    R"(healthy pods and has 2 currently"}]},"code":429})";
const char kApfRefusal[] =
    R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Too many requests, )"
    R"(please try again later.","reason":"TooManyRequests","code":429})";

TEST(Eviction, APdbsRefusalIsToldApartFromApfs) {
  EXPECT_TRUE(kube::RefusedByDisruptionBudget(kPdbRefusal));
  EXPECT_FALSE(kube::RefusedByDisruptionBudget(kApfRefusal));
  EXPECT_FALSE(kube::RefusedByDisruptionBudget("not json"));
}

// The fake API with the Eviction API in front: each eviction takes the next scripted answer
// (none left: 201, and the Pod is deleted, as the API server does once the PDB allows it).
class EvictingApi final : public net::HttpClient {
 public:
  explicit EvictingApi(testing::FakeBatchApi& api) : api_(api) {}
  absl::StatusOr<net::HttpResponse> Send(const net::HttpRequest& request) override {
    if (request.method == "POST" && absl::EndsWith(request.url, "/eviction")) {
      const std::vector<std::string> parts = absl::StrSplit(request.url, '/');
      const std::string& ns = parts[parts.size() - 4];
      const std::string& pod = parts[parts.size() - 2];
      const Json body = Json::parse(request.body);
      EXPECT_EQ(body["apiVersion"], "policy/v1");
      EXPECT_EQ(body["metadata"]["name"], pod);
      attempts.push_back(absl::StrCat(ns, "/", pod));
      if (!answers.empty()) {
        auto [status, text] = answers.front();
        answers.pop_front();
        return net::HttpResponse{.status = status, .body = text};
      }
      api_.Delete("pods", ns, pod);
      return net::HttpResponse{.status = 201, .body = R"({"kind":"Status","status":"Success"})"};
    }
    return api_.Send(request);
  }
  std::deque<std::pair<int, std::string>> answers;
  std::vector<std::string> attempts;

 private:
  testing::FakeBatchApi& api_;
};

// Three Nodes in three grids, as the cluster tier's: Belgium (europe-west1), Germany
// (europe-west3), France (europe-west9); Germany is 8 ms from Belgium, 10 ms from France.
Json Node(const std::string& name, const std::string& region, const std::string& location) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels",
             {{"topology.kubernetes.io/region", region}, {"carbonroute.io/location", location}}}}},
          {"status",
           {{"allocatable", {{"cpu", "8"}, {"memory", "32Gi"}}},
            {"conditions", Json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

struct Harness {
  testing::FakeClock clock{kStart};
  testing::FakeBatchApi fake{[this] { return clock.Now(); }};
  EvictingApi api{fake};
  kube::KubeClient kube{kube::KubeConnection{.server = "http://fake"}, api};
  prometheus::Registry registry;
  RebalanceMetrics metrics{registry};
  ledger::Ledger ledger{registry};
  kube::EventRecorder events{kube, "carbonroute-rebalance", "replica-a"};
  std::map<std::string, double> intensity = {{"BE", 150}, {"DE", 380}, {"FR", 56}};
  int pods = 0;

  Harness() {
    fake.ServeResource("carbonroute.io/v1alpha1", "carbonrebalancepolicies", true);
    fake.ServeResource("v1", "pods", true, false);
    fake.ServeResource("v1", "nodes", false, false);
    fake.ServeResource("apps/v1", "deployments", true, false);
    fake.ServeResource("apps/v1", "replicasets", true, false);
    fake.ServeResource("apps/v1", "statefulsets", true, false);
    fake.PutObject("nodes", Node("n-be", "europe-west1", "BE"));
    fake.PutObject("nodes", Node("n-de", "europe-west3", "DE"));
    fake.PutObject("nodes", Node("n-fr", "europe-west9", "FR"));
  }
  void Policy(const Json& spec) {
    fake.PutObject("carbonrebalancepolicies",
                   {{"apiVersion", "carbonroute.io/v1alpha1"},
                    {"kind", "CarbonRebalancePolicy"},
                    {"metadata", {{"name", "web"}, {"namespace", "shop"}, {"uid", "policy-1"}}},
                    {"spec", spec}});
  }
  // A Deployment and its ReplicaSet.
  void Deployment(const std::string& name, const std::string& scheduler = "carbonroute") {
    fake.PutObject("deployments",
                   {{"apiVersion", "apps/v1"},
                    {"kind", "Deployment"},
                    {"metadata",
                     {{"name", name},
                      {"namespace", "shop"},
                      {"uid", "dep-" + name},
                      {"labels", {{"tier", "web"}}}}},
                    {"spec", {{"template", {{"spec", {{"schedulerName", scheduler}}}}}}}});
    fake.PutObject("replicasets",
                   {{"apiVersion", "apps/v1"},
                    {"kind", "ReplicaSet"},
                    {"metadata",
                     {{"name", name + "-1"},
                      {"namespace", "shop"},
                      {"uid", "rs-" + name},
                      {"ownerReferences", Json::array({{{"kind", "Deployment"},
                                                        {"name", name},
                                                        {"uid", "dep-" + name},
                                                        {"controller", true}}})}}},
                    {"spec", {{"template", {{"spec", {{"schedulerName", scheduler}}}}}}}});
  }
  // A Pod of `owner`'s ReplicaSet (or of `owner_kind`/`owner`), bound to `node` `bound_ago` ago.
  void Pod(const std::string& name, const std::string& owner, const std::string& node,
           absl::Duration bound_ago = absl::Hours(1), const Json& labels = Json::object(),
           const std::string& owner_kind = "ReplicaSet", const Json& volumes = Json::array()) {
    const std::string at =
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", clock.Now() - bound_ago, absl::UTCTimeZone());
    Json metadata = {{"name", name},
                     {"namespace", "shop"},
                     {"uid", "uid-" + name},
                     {"labels", labels},
                     {"creationTimestamp", at}};
    if (!owner.empty()) {
      const std::string uid = owner_kind == "ReplicaSet" ? "rs-" + owner : owner_kind + "-" + owner;
      metadata["ownerReferences"] = Json::array(
          {{{"kind", owner_kind}, {"name", owner}, {"uid", uid}, {"controller", true}}});
    }
    fake.PutObject(
        "pods",
        {{"apiVersion", "v1"},
         {"kind", "Pod"},
         {"metadata", metadata},
         {"spec",
          {{"nodeName", node},
           {"schedulerName", "carbonroute"},
           {"volumes", volumes},
           {"containers",
            Json::array({{{"name", "web"},
                          {"resources", {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}}}}})}}},
         {"status",
          {{"phase", "Running"},
           {"conditions",
            Json::array({{{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", at}},
                         {{"type", "Ready"}, {"status", "True"}}})}}}});
    ++pods;
  }
  model_sources::LoadedModel Load(absl::Time now) {
    placement::PlacementFacts facts;
    facts.built_at = now;
    for (const auto& [region, location] : std::map<std::string, std::string>{
             {"europe-west1", "BE"}, {"europe-west3", "DE"}, {"europe-west9", "FR"}}) {
      facts.region_locations[region] = location;
    }
    for (const auto& [from, to, ms] : std::vector<std::tuple<std::string, std::string, int>>{
             {"europe-west3", "europe-west1", 8},
             {"europe-west3", "europe-west9", 10},
             {"europe-west1", "europe-west9", 4}}) {
      for (const auto& [a, b] : {std::pair{from, to}, std::pair{to, from}}) {
        facts.rtt[a][b] = {
            .rtt = absl::Milliseconds(ms), .method = RttMethod::kDeclared, .observed_at = now};
      }
    }
    for (const auto& [location, grams] : intensity) {
      auto& carbon = facts.carbon[location];
      carbon.grams_per_kwh = grams;
      carbon.valid_to = now + absl::Minutes(30);
      carbon.observed_at = now;
    }
    return {.model = std::make_shared<placement::PlacementModel>(facts), .sources_read = 1};
  }
  std::unique_ptr<RebalanceController> Controller(bool dry_run = false) {
    return std::make_unique<RebalanceController>(
        controller_runtime::Wiring{kube, clock, nullptr, &events},
        RebalanceControllerOptions{.resync = absl::Seconds(10), .dry_run = dry_run},
        [this](absl::Time now) { return Load(now); }, metrics, &ledger);
  }
  void Pass(RebalanceController& controller, absl::Duration after) {
    clock.Advance(after);
    controller.RunOnce();
  }
  std::vector<std::string> Reasons() const {
    std::vector<std::string> reasons;
    for (const Json& event : fake.events()) reasons.push_back(event.value("reason", ""));
    return reasons;
  }
  std::string Status() const {
    return fake.Get("carbonrebalancepolicies", "shop", "web")["status"].dump();
  }
  double Counter(const std::string& name, const std::map<std::string, std::string>& labels) {
    return testing::CounterValue(registry, name, labels);
  }
};

// minStay 60 s: the gap Germany → France (324 gCO2eq/kWh) is first seen at 0 s; at 61 s one Pod
// of web is evicted and the other waits (one in flight per workload); pinned's delay_europe-west3
// limit of 6 ms is met only by its own Node (Belgium 8, France 10). The replacement bound to
// France links the move; the next pass evicts web's second Pod.
TEST(RebalanceController, MovesAfterMinStayOnePodOfAWorkloadAtATime) {
  Harness h;
  h.Policy({{"selector", {{"matchLabels", {{"tier", "web"}}}}},
            {"minStay", "60s"},
            {"maxMovesPerPeriod", 5},
            {"joulesPerStart", 100}});
  h.Deployment("web");
  h.Deployment("pinned");
  h.Pod("web-a", "web", "n-de");
  h.Pod("web-b", "web", "n-de");
  h.Pod("pinned-a", "pinned", "n-de", absl::Hours(1), {{"delay_europe-west3", "6"}});
  std::unique_ptr<RebalanceController> controller = h.Controller();
  h.Pass(*controller, absl::ZeroDuration());
  EXPECT_TRUE(h.api.attempts.empty());
  EXPECT_THAT(h.Status(), HasSubstr(R"("verdict":"waiting")"));
  EXPECT_EQ(h.Counter(metric_names::kRebalanceCandidates, {}), 0);
  h.Pass(*controller, absl::Seconds(61));
  ASSERT_EQ(h.api.attempts, std::vector<std::string>{"shop/web-a"});
  EXPECT_THAT(h.Status(), HasSubstr(R"("verdict":"in_flight")"));
  EXPECT_THAT(h.Status(), ::testing::Not(HasSubstr("pinned-a")));
  EXPECT_EQ(h.Reasons(), std::vector<std::string>{"CarbonRebalanceEvicted"});
  EXPECT_EQ(h.Counter(metric_names::kRebalanceEvictions, {{"result", "evicted"}}), 1);
  // The ReplicaSet's replacement, bound by the scheduler to France.
  h.Pod("web-c", "web", "n-fr", absl::ZeroDuration());
  h.Pass(*controller, absl::Seconds(10));
  EXPECT_THAT(h.Reasons(),
              ::testing::ElementsAre("CarbonRebalanceEvicted", "CarbonRebalanceReplaced",
                                     "CarbonRebalanceEvicted"));
  EXPECT_THAT(h.fake.events()[1]["message"].get<std::string>(),
              HasSubstr("web-c was bound to n-fr (FR) in place of web-a on n-de (DE)"));
  EXPECT_EQ(h.api.attempts, (std::vector<std::string>{"shop/web-a", "shop/web-b"}));
  EXPECT_THAT(h.Status(), HasSubstr(R"("moves":2)"));
  // The ledger by hand: the restart, 100 J at France (56): 100 / 3.6e6 × 56 = 1.556 mg against 0;
  // web-c's stay from 71 s to 131 s at 1 CPU and 1 GiB (2.12 + 0.392 × 1.073741824 W =
  // 2.5409 W: 152.45 J): 152.45 / 3.6e6 × 56 g chosen against × 380 counterfactual.
  h.Pass(*controller, absl::Seconds(60));
  const double watts = 2.12 + 0.392 * 1.073741824;
  const std::map<std::string, std::string> rebalance = {{"controller", "rebalance"}};
  EXPECT_EQ(h.Counter("carbonroute_ledger_decisions_total", {{"outcome", "moved"}}), 1);
  EXPECT_NEAR(h.Counter("carbonroute_ledger_emissions_grams_total",
                        {{"controller", "rebalance"}, {"basis", "chosen"}}),
              100 / 3.6e6 * 56 + watts * 60 / 3.6e6 * 56, 1e-9);
  EXPECT_NEAR(h.Counter("carbonroute_ledger_emissions_grams_total",
                        {{"controller", "rebalance"}, {"basis", "counterfactual"}}),
              watts * 60 / 3.6e6 * 380, 1e-9);
}

// A PodDisruptionBudget's 429 is counted and said once, and no other Pod of that workload is
// tried in the pass; API Priority and Fairness' 429 is counted apart and ends the pass's
// evictions; both are tried again at the next pass.
TEST(RebalanceController, APdbRefusalIsRespectedAndTriedAgain) {
  Harness h;
  h.Policy({{"minStay", "1s"}, {"maxMovesPerPeriod", 5}});
  h.Deployment("web");
  h.Pod("web-a", "web", "n-de");
  h.Pod("web-b", "web", "n-de");
  h.api.answers = {{429, kPdbRefusal}, {429, kPdbRefusal}, {429, kApfRefusal}};
  std::unique_ptr<RebalanceController> controller = h.Controller();
  h.Pass(*controller, absl::ZeroDuration());
  for (int pass = 0; pass < 4; ++pass) h.Pass(*controller, absl::Seconds(10));
  EXPECT_EQ(h.api.attempts,
            (std::vector<std::string>{"shop/web-a", "shop/web-a", "shop/web-a", "shop/web-a"}));
  EXPECT_EQ(h.Counter(metric_names::kRebalanceEvictions, {{"result", "blocked_by_pdb"}}), 2);
  EXPECT_EQ(h.Counter(metric_names::kRebalanceEvictions, {{"result", "throttled"}}), 1);
  EXPECT_EQ(h.Counter(metric_names::kRebalanceEvictions, {{"result", "evicted"}}), 1);
  EXPECT_EQ(h.Reasons(),
            (std::vector<std::string>{"CarbonRebalanceBlockedByPDB", "CarbonRebalanceEvicted"}));
  EXPECT_THAT(h.fake.events()[0]["message"].get<std::string>(),
              HasSubstr("would violate the pod's disruption budget"));
  EXPECT_THAT(h.Status(), HasSubstr(R"("blockedMoves":2)"));
}

// Germany turns clean again within minStay: the gap's clock starts over, nothing moves.
TEST(RebalanceController, AFlipBackWithinMinStayMovesNothing) {
  Harness h;
  h.Policy({{"minStay", "60s"}});
  h.Deployment("web");
  h.Pod("web-a", "web", "n-de");
  std::unique_ptr<RebalanceController> controller = h.Controller();
  h.Pass(*controller, absl::ZeroDuration());
  h.intensity["DE"] = 40;
  h.Pass(*controller, absl::Seconds(30));
  h.intensity["DE"] = 380;
  h.Pass(*controller, absl::Seconds(35));
  h.Pass(*controller, absl::Seconds(20));
  EXPECT_TRUE(h.api.attempts.empty());
  h.Pass(*controller, absl::Seconds(45));  // 80 s after the gap opened again
  EXPECT_EQ(h.api.attempts.size(), 1u);
}

// --dry-run: no eviction; the Event once; the shadow ledger books the move it would have made.
TEST(RebalanceController, DryRunEvictsNothing) {
  Harness h;
  h.Policy({{"minStay", "1s"}, {"maxMovesPerPeriod", 5}});
  h.Deployment("web");
  h.Pod("web-a", "web", "n-de");
  std::unique_ptr<RebalanceController> controller = h.Controller(/*dry_run=*/true);
  h.Pass(*controller, absl::ZeroDuration());
  h.Pass(*controller, absl::Seconds(10));
  h.Pass(*controller, absl::Seconds(10));
  EXPECT_TRUE(h.api.attempts.empty());
  EXPECT_EQ(h.Reasons(), std::vector<std::string>{"CarbonRebalanceWouldEvict"});
  EXPECT_EQ(h.Counter(metric_names::kRebalanceEvictions, {{"result", "would_evict"}}), 1);
  EXPECT_EQ(h.Counter("carbonroute_ledger_decisions_total", {{"mode", "shadow"}}), 1);
  EXPECT_EQ(h.Status(), "null");  // a dry run writes no status
  for (const testing::FakeApiCall& call : h.fake.calls()) {
    EXPECT_TRUE(call.method == "GET" || call.target.find("/events") != std::string::npos)
        << call.method << " " << call.target;
  }
}

// Never moved: a Pod without a controller, a DaemonSet's, one with an emptyDir (unless
// allowLocalStorage), and one whose workload names a scheduler that does not call the extender
// (an Event, once).
TEST(RebalanceController, PodsThatWouldNotComeBackWhereCarbonrouteChoosesStay) {
  Harness h;
  h.Policy({{"minStay", "1s"}, {"maxMovesPerPeriod", 5}});
  h.Deployment("elsewhere", "default-scheduler");
  h.Pod("bare", "", "n-de");
  h.Pod("agent", "agent", "n-de", absl::Hours(1), Json::object(), "DaemonSet");
  h.Deployment("cache");
  h.Pod("cache-a", "cache", "n-de", absl::Hours(1), Json::object(), "ReplicaSet",
        Json::array({{{"name", "scratch"}, {"emptyDir", Json::object()}}}));
  h.Pod("elsewhere-a", "elsewhere", "n-de");
  std::unique_ptr<RebalanceController> controller = h.Controller();
  h.Pass(*controller, absl::ZeroDuration());
  h.Pass(*controller, absl::Seconds(10));
  h.Pass(*controller, absl::Seconds(10));
  EXPECT_TRUE(h.api.attempts.empty());
  EXPECT_EQ(h.Reasons(), std::vector<std::string>{"CarbonRebalanceNotPlacedByCarbonroute"});
  EXPECT_THAT(h.fake.events()[0]["message"].get<std::string>(),
              HasSubstr("elsewhere-a would move to n-fr (FR) but its template's schedulerName "
                        "default-scheduler is not a profile that calls carbonroute's extender"));
  EXPECT_THAT(h.Status(), HasSubstr(R"("verdict":"not_placed_by_carbonroute")"));
  h.Policy({{"minStay", "1s"}, {"maxMovesPerPeriod", 5}, {"allowLocalStorage", true}});
  h.Pass(*controller, absl::Seconds(10));
  EXPECT_EQ(h.api.attempts, std::vector<std::string>{"shop/cache-a"});
}

}  // namespace
}  // namespace carbonroute::rebalance
