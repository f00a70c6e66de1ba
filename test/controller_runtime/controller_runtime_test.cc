// The shell every controller shares (controller_runtime/): its metrics under
// the names a controller passes, the status writer's de-duplication and
// condition times, the Event wrapper's failure accounting, and "the CRD is
// not installed" said once; on FakeBatchApi, the scripted API server the
// controllers' own tests use.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "controller_runtime/absent_collections.h"
#include "controller_runtime/controller_metrics.h"
#include "controller_runtime/object_events.h"
#include "controller_runtime/status_writer.h"
#include "kube/event_recorder.h"
#include "kube/kube_client.h"
#include "prometheus/registry.h"
#include "test/testing/captured_log.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/metrics_scrape.h"

namespace carbonroute::controller_runtime {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr metric_names::ControllerMetricNames kNames{.leader = "test_leader",
                                                     .errors = "test_errors_total",
                                                     .last_reconcile = "test_last_reconcile"};
const absl::Time kRuntimeStart = absl::FromUnixSeconds(1'780'000'000);
constexpr char kWidgets[] = "/apis/example.io/v1/namespaces/shop/widgets";

struct RuntimeHarness {
  testing::FakeBatchApi api{[] { return kRuntimeStart; }};
  kube::KubeClient kube{kube::KubeConnection{.server = "http://fake"}, api};
  prometheus::Registry registry;
  ControllerMetrics metrics{registry, kNames, {"list", "status"}};
  testing::CapturedLog log;

  RuntimeHarness() {
    api.ServeResource("example.io/v1", "widgets", true);
    api.PutObject(
        "widgets",
        nlohmann::json::parse(R"({"metadata": {"name": "a", "namespace": "shop", "uid": "u1"}})"));
  }
  int StatusWrites() const {
    const auto calls = api.calls();
    return static_cast<int>(std::count_if(calls.begin(), calls.end(), [](const auto& call) {
      return call.method == "PATCH" && call.target.find("/status") != std::string::npos;
    }));
  }
  std::string Scrape() { return testing::ScrapeMetricsPage(registry); }
};

TEST(ControllerMetrics, TheNamesGivenAreTheSeriesExported) {
  RuntimeHarness h;
  h.metrics.SetLeader(true);
  h.metrics.Error("list");
  h.metrics.Error("list");
  h.metrics.Reconciled({{"policy", "p"}}, kRuntimeStart);
  const std::string page = h.Scrape();
  EXPECT_THAT(page, HasSubstr("test_leader 1\n"));
  EXPECT_THAT(page, HasSubstr("test_errors_total{operation=\"list\"} 2\n"));
  EXPECT_THAT(page, HasSubstr("test_errors_total{operation=\"status\"} 0\n"));  // made at 0
  EXPECT_THAT(page, HasSubstr("test_last_reconcile{policy=\"p\"} 1780000000\n"));
  h.metrics.Forget({{"policy", "p"}});
  h.metrics.Forget({{"policy", "never-seen"}});  // nothing to remove: no error
  EXPECT_THAT(h.Scrape(), Not(HasSubstr("test_last_reconcile{")));
}

TEST(ControllerMetrics, ANullNameRegistersNoFamily) {
  prometheus::Registry registry;
  ControllerMetrics leader_only(registry, {.leader = "only_leader"});
  leader_only.Error("list");                            // no errors family: nothing
  leader_only.Reconciled({{"a", "b"}}, kRuntimeStart);  // no last-reconcile family: nothing
  leader_only.SetLeader(false);
  const std::string page = testing::ScrapeMetricsPage(registry);
  EXPECT_THAT(page, HasSubstr("only_leader 0\n"));
  EXPECT_THAT(page, Not(HasSubstr("operation=")));
  EXPECT_THAT(page, Not(HasSubstr("a=\"b\"")));
}

TEST(StatusWriter, WritesAStatusOnlyWhenItChangedAndAgainAfterForget) {
  RuntimeHarness h;
  StatusWriter writer(h.kube, h.metrics, "test", /*dry_run=*/false);
  const std::string path = std::string(kWidgets) + "/a";
  EXPECT_TRUE(writer.Write("u1", path, "Widget shop/a", R"({"status": {"n": 1}})"));
  EXPECT_TRUE(writer.Write("u1", path, "Widget shop/a", R"({"status": {"n": 1}})"));
  EXPECT_EQ(h.StatusWrites(), 1);
  EXPECT_EQ(h.api.Get("widgets", "shop", "a")["status"]["n"], 1);
  EXPECT_TRUE(writer.Write("u1", path, "Widget shop/a", R"({"status": {"n": 2}})"));
  EXPECT_EQ(h.StatusWrites(), 2);
  writer.Forget("u1");  // the object went and came back: written again
  EXPECT_TRUE(writer.Write("u1", path, "Widget shop/a", R"({"status": {"n": 2}})"));
  EXPECT_EQ(h.StatusWrites(), 3);
}

TEST(StatusWriter, AFailedWriteIsCountedLoggedAndTriedAgain) {
  RuntimeHarness h;
  StatusWriter writer(h.kube, h.metrics, "test", /*dry_run=*/false);
  const std::string gone = std::string(kWidgets) + "/gone";
  EXPECT_FALSE(writer.Write("u2", gone, "Widget shop/gone", R"({"status": {}})"));
  EXPECT_FALSE(writer.Write("u2", gone, "Widget shop/gone", R"({"status": {}})"));
  EXPECT_EQ(h.StatusWrites(), 2);  // nothing remembered as written
  EXPECT_THAT(h.Scrape(), HasSubstr("test_errors_total{operation=\"status\"} 2\n"));
  EXPECT_THAT(h.log.text(), HasSubstr("test: the status of Widget shop/gone: "));
}

TEST(StatusWriter, ADryRunWritesNothing) {
  RuntimeHarness h;
  StatusWriter writer(h.kube, h.metrics, "test", /*dry_run=*/true);
  EXPECT_FALSE(writer.Write("u1", std::string(kWidgets) + "/a", "Widget shop/a", "{}"));
  EXPECT_EQ(h.StatusWrites(), 0);
}

TEST(StatusWriter, AConditionKeepsItsTimeUntilItsStatusChanges) {
  RuntimeHarness h;
  StatusWriter writer(h.kube, h.metrics, "test", false);
  const absl::Time t0 = kRuntimeStart;
  EXPECT_EQ(writer.TransitionTime("u1", "Ready", "True", t0), t0);
  EXPECT_EQ(writer.TransitionTime("u1", "Ready", "True", t0 + absl::Minutes(5)), t0);
  EXPECT_EQ(writer.TransitionTime("u1", "DataMissing", "False", t0 + absl::Minutes(5)),
            t0 + absl::Minutes(5));
  EXPECT_EQ(writer.TransitionTime("u1", "Ready", "False", t0 + absl::Minutes(7)),
            t0 + absl::Minutes(7));
  EXPECT_EQ(writer.TransitionTime("u2", "Ready", "False", t0 + absl::Minutes(8)),
            t0 + absl::Minutes(8));  // each object its own
  writer.Forget("u1");
  EXPECT_EQ(writer.TransitionTime("u1", "Ready", "False", t0 + absl::Minutes(9)),
            t0 + absl::Minutes(9));
}

// An API that refuses every request with 500.
class RefusingApi final : public net::HttpClient {
 public:
  absl::StatusOr<net::HttpResponse> Send(const net::HttpRequest&) override {
    return net::HttpResponse{.status = 500, .headers = {}, .body = "{}"};
  }
};

TEST(ObjectEvents, AnEventWrittenAndAFailedOneCountedAndLogged) {
  RuntimeHarness h;
  const kube::EventRecorder recorder(h.kube, "carbonroute-test", "replica-a");
  ObjectEvents events(&recorder, h.metrics, "test");
  const kube::ObjectReference widget{"example.io/v1", "Widget", "shop", "a", "u1"};
  events.Say(widget, "Widget shop/a", kube::EventType::kNormal, "Done", "it is done",
             kRuntimeStart);
  ASSERT_EQ(h.api.events().size(), 1u);
  EXPECT_EQ(h.api.events()[0]["reason"], "Done");
  EXPECT_EQ(h.api.events()[0]["involvedObject"]["uid"], "u1");

  RefusingApi refusing;
  const kube::KubeClient broken(kube::KubeConnection{.server = "http://fake"}, refusing);
  const kube::EventRecorder failing(broken, "carbonroute-test", "replica-a");
  ObjectEvents failing_events(&failing, h.metrics, "test");
  failing_events.Say(widget, "Widget shop/a", kube::EventType::kWarning, "Odd", "odd",
                     kRuntimeStart);
  EXPECT_THAT(h.Scrape(), HasSubstr("test_errors_total{operation=\"event\"} 1\n"));
  EXPECT_THAT(h.log.text(), HasSubstr("test: an Event on Widget shop/a: "));
}

TEST(ObjectEvents, WithoutARecorderNothingIsSentAndNothingFails) {
  RuntimeHarness h;
  ObjectEvents events(nullptr, h.metrics, "test");
  EXPECT_FALSE(events.enabled());
  EXPECT_TRUE(events.Record({}, kube::EventType::kNormal, "R", "m", kRuntimeStart).ok());
  events.Say({}, "x", kube::EventType::kNormal, "R", "m", kRuntimeStart);
  EXPECT_TRUE(h.api.calls().empty());
  EXPECT_THAT(h.Scrape(), Not(HasSubstr("operation=\"event\"")));
}

TEST(AbsentCollections, EachMissingCollectionIsSaidOnce) {
  testing::CapturedLog log;
  AbsentCollections absent("test");
  absent.Absent(kWidgets, "Widget");
  absent.Absent(kWidgets, "Widget");
  absent.Absent("/apis/example.io/v1/gadgets", "Gadget");
  const std::string text = log.text();
  const std::string widget_line =
      std::string("test: ") + kWidgets + " answered 404 (the Widget CRD is not installed): none";
  EXPECT_THAT(text, HasSubstr(widget_line));
  EXPECT_EQ(text.find(widget_line), text.rfind(widget_line));  // once
  EXPECT_THAT(text, HasSubstr("the Gadget CRD is not installed"));
}

}  // namespace
}  // namespace carbonroute::controller_runtime
