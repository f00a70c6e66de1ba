#include "hold/hold_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <cmath>
#include <map>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "contract/intensity_trace.h"
#include "exporter/metrics_page.h"
#include "hold/hold_patches.h"
#include "test/testing/build_paths.h"
#include "test/testing/captured_log.h"
#include "test/testing/counter_value.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_clock.h"
#include "test/testing/metrics_scrape.h"

namespace carbonroute::hold {
namespace {

using testing::FakeBatchApi;
using testing::FakeClock;
using ::testing::HasSubstr;

const absl::Time kHoldStart = absl::FromUnixSeconds(1795600800);  // 2026-11-25T10:00:00Z

// Hourly intensity from T0 for two days, different in each location.
double Intensity(const std::string& location, int hour) {
  const int salt = location == "DE" ? 37 : 53;
  return 150 + ((hour * salt + 5) % 17) * 15;
}

class FixedForecasts final : public ForecastSource {
 public:
  absl::StatusOr<std::vector<std::string>> Locations() override {
    return std::vector<std::string>{"DE", "FR"};
  }
  absl::StatusOr<std::vector<ForecastPoint>> Forecast(const std::string& location) override {
    ++fetches;
    if (location != "DE" && location != "FR") return absl::NotFoundError("no " + location);
    std::vector<ForecastPoint> points;
    for (int h = 0; h < 48; ++h) {
      const absl::Time start = kHoldStart + absl::Hours(h);
      const double dip = h == dip_hour ? -1000 : 0;  // a new forecast: a clean hour appears
      points.push_back(
          {start, start + absl::Hours(1), std::max(1.0, Intensity(location, h) + dip)});
    }
    return points;
  }
  // The hourly values' time-weighted mean (the readings are the forecast's values).
  absl::StatusOr<ObservedMean> Observed(const std::string& location, absl::Time start,
                                        absl::Time end) override {
    double weighted = 0;
    for (absl::Time t = start; t < end;) {
      const int64_t hour = (t - kHoldStart) / absl::Hours(1);
      const absl::Time next = std::min(end, kHoldStart + absl::Hours(hour + 1));
      weighted += Intensity(location, static_cast<int>(hour)) * absl::ToDoubleSeconds(next - t);
      t = next;
    }
    return ObservedMean{.grams_per_kwh = weighted / absl::ToDoubleSeconds(end - start)};
  }
  int fetches = 0;
  int dip_hour = -1;
};

// The best start computed here, independently: every whole hour from `from`
// whose run ends by the deadline, the lowest mean, the earliest on ties.
std::pair<absl::Time, double> BestStart(const std::vector<std::string>& locations, absl::Time from,
                                        int runtime_hours, absl::Time deadline) {
  absl::Time best_start = absl::InfiniteFuture();
  double best = INFINITY;
  for (const std::string& location : locations) {
    for (int h = static_cast<int>((from - kHoldStart) / absl::Hours(1));
         kHoldStart + absl::Hours(h + runtime_hours) <= deadline; ++h) {
      double sum = 0;
      for (int i = 0; i < runtime_hours; ++i) sum += Intensity(location, h + i);
      const double mean = sum / runtime_hours;
      const absl::Time start = kHoldStart + absl::Hours(h);
      if (mean < best || (mean == best && start < best_start)) {
        best = mean;
        best_start = start;
      }
    }
  }
  return {best_start, best};
}

struct Harness {
  FakeClock clock{kHoldStart};
  FakeBatchApi api{[this] { return clock.Now(); }};
  kube::KubeClient kube{kube::KubeConnection{.server = "http://fake"}, api};
  FixedForecasts forecasts;
  prometheus::Registry registry;
  HoldMetrics metrics{registry};
  testing::CapturedLog log;

  kube::EventRecorder events{kube, "carbonroute-hold", "replica-a"};

  std::unique_ptr<HoldController> Controller(kube::LeaseElection* lease = nullptr,
                                             bool record_events = false) {
    return std::make_unique<HoldController>(
        HoldControllerOptions{},
        controller_runtime::Wiring{kube, clock, lease, record_events ? &events : nullptr},
        forecasts, metrics);
  }
  // Runs passes until `until` (the fake clock jumps from wake to wake).
  void RunUntil(HoldController& controller, absl::Time until) {
    absl::Notification stop;
    clock.StopAt(until);
    controller.Run(stop);
  }
  std::string Metrics() { return testing::ScrapeMetricsPage(registry); }
  std::string Annotation(const std::string& resource, const std::string& name,
                         const char* key) const {
    const nlohmann::json object = api.Get(resource, "batch", name);
    return object["metadata"]["annotations"].value(key, "");
  }
  int Patches(const std::string& path) const {
    int count = 0;
    for (const testing::FakeApiCall& call : api.calls())
      count += call.method == "PATCH" && call.target == path;
    return count;
  }
};

TEST(HoldController, AJobIsReleasedAtTheBestWindowAndSaysItsPlanMeanwhile) {
  Harness h;
  h.api.AddJob("batch", "nightly", kHoldStart,
               {{kRuntimeAnnotation, "3h"}, {kDeadlineAnnotation, "20h"}});
  auto controller = h.Controller();
  controller->RunOnce();
  const auto [start, mean] = BestStart({"DE", "FR"}, kHoldStart, 3, kHoldStart + absl::Hours(20));
  ASSERT_GT(start, kHoldStart);
  EXPECT_EQ(h.Annotation("jobs", "nightly", kReleaseAtAnnotation), AnnotationTime(start));
  EXPECT_EQ(h.Annotation("jobs", "nightly", kExpectedIntensityAnnotation),
            AnnotationIntensity(mean));
  EXPECT_EQ(h.api.Get("jobs", "batch", "nightly")["spec"]["suspend"], true);

  h.RunUntil(*controller, kHoldStart + absl::Hours(30));
  const nlohmann::json job = h.api.Get("jobs", "batch", "nightly");
  EXPECT_EQ(job["spec"]["suspend"], false);
  EXPECT_EQ(h.Annotation("jobs", "nightly", kReleasedAtAnnotation), AnnotationTime(start));
  EXPECT_EQ(h.Annotation("jobs", "nightly", kReleaseReasonAnnotation), "window");
  EXPECT_EQ(h.Annotation("jobs", "nightly", kReleaseIntensityAnnotation),
            AnnotationIntensity(mean));
  ASSERT_EQ(controller->releases().size(), 1u);
  EXPECT_EQ(controller->releases()[0].at, start);
  // The release PATCH arrived exactly at the planned start (the loop woke for it).
  for (const testing::FakeApiCall& call : h.api.calls()) {
    if (call.method == "PATCH" && absl::StrContains(call.body, "\"suspend\":false")) {
      EXPECT_EQ(call.at, start);
    }
  }
  EXPECT_THAT(h.Metrics(),
              HasSubstr("carbonroute_hold_releases_total{kind=\"Job\",reason=\"window\"} 1"));
  EXPECT_THAT(h.Metrics(), HasSubstr("carbonroute_hold_objects{kind=\"Job\"} 0"));
}

// `kubectl describe job nightly` shows what was done: one Event per release.
TEST(HoldController, EachReleaseIsAnEventOnTheObject) {
  Harness h;
  h.api.AddJob("batch", "nightly", kHoldStart,
               {{kRuntimeAnnotation, "3h"}, {kDeadlineAnnotation, "20h"}});
  h.api.AddJob("batch", "broken", kHoldStart, {{kRuntimeAnnotation, "soon"}});
  auto controller = h.Controller(nullptr, /*record_events=*/true);
  h.RunUntil(*controller, kHoldStart + absl::Hours(30));
  const std::vector<nlohmann::json> events = h.api.events();
  ASSERT_EQ(events.size(), 2u);
  std::map<std::string, nlohmann::json> by_name;
  for (const nlohmann::json& event : events) by_name[event["involvedObject"]["name"]] = event;
  const nlohmann::json& released = by_name["nightly"];
  EXPECT_EQ(released["involvedObject"]["kind"], "Job");
  EXPECT_EQ(released["involvedObject"]["apiVersion"], "batch/v1");
  EXPECT_EQ(released["involvedObject"]["namespace"], "batch");
  EXPECT_EQ(released["involvedObject"]["uid"],
            h.api.Get("jobs", "batch", "nightly")["metadata"]["uid"]);
  EXPECT_EQ(released["metadata"]["namespace"], "batch");
  EXPECT_EQ(released["reason"], "CleanWindowRelease");
  EXPECT_EQ(released["type"], "Normal");
  EXPECT_EQ(released["source"]["component"], "carbonroute-hold");
  const auto [start, mean] = BestStart({"DE", "FR"}, kHoldStart, 3, kHoldStart + absl::Hours(20));
  EXPECT_THAT(released["message"].get<std::string>(),
              HasSubstr(absl::StrCat("released by carbonroute (window) at ",
                                     AnnotationIntensity(mean), " gCO2eq/kWh")));
  EXPECT_EQ(by_name["broken"]["type"], "Warning");
  EXPECT_THAT(by_name["broken"]["message"].get<std::string>(), HasSubstr("(invalid)"));
  EXPECT_THAT(h.Metrics(), HasSubstr("carbonroute_hold_errors_total{operation=\"event\"} 0"));
}

// Shadow mode: a Job that opted in but runs unheld gets one Event saying what carbonroute would
// have done; nothing is written, and a held Job stays held.
TEST(HoldController, ADryRunWritesNothingButEventsAndReleasesNothing) {
  Harness h;
  h.api.AddJob("batch", "nightly", kHoldStart,
               {{kRuntimeAnnotation, "3h"}, {kDeadlineAnnotation, "20h"}}, /*suspend=*/false);
  h.api.AddJob("batch", "held", kHoldStart,
               {{kRuntimeAnnotation, "3h"}, {kDeadlineAnnotation, "20h"}}, /*suspend=*/true);
  HoldControllerOptions options;
  options.dry_run = true;
  HoldController controller(options, {h.kube, h.clock, nullptr, &h.events}, h.forecasts, h.metrics);
  h.RunUntil(controller, kHoldStart + absl::Hours(30));
  for (const testing::FakeApiCall& call : h.api.calls()) {
    EXPECT_TRUE(call.method == "GET" || absl::StrContains(call.target, "/events"))
        << call.method << " " << call.target;
  }
  EXPECT_EQ(h.api.Get("jobs", "batch", "held")["spec"]["suspend"], true);
  EXPECT_TRUE(controller.releases().empty());
  const std::vector<nlohmann::json> events = h.api.events();
  ASSERT_EQ(events.size(), 1u);  // once, not on every pass
  EXPECT_EQ(events[0]["reason"], "CleanWindowWouldHold");
  EXPECT_EQ(events[0]["involvedObject"]["name"], "nightly");
  const auto [start, mean] = BestStart({"DE", "FR"}, kHoldStart, 3, kHoldStart + absl::Hours(20));
  EXPECT_THAT(events[0]["message"].get<std::string>(),
              HasSubstr(absl::StrCat("carbonroute would hold it until ", AnnotationTime(start))));
  EXPECT_THAT(events[0]["message"].get<std::string>(),
              HasSubstr(absl::StrCat(AnnotationIntensity(mean), " gCO2eq/kWh expected")));
  EXPECT_THAT(h.log.text(), HasSubstr("is held, and a dry run releases nothing"));
}

// The savings ledger (hold/hold_ledger.h), from the controller: a Job of 2 Pods of 4 cores and
// 8 GB, released at its window, runs its 3 hours there; the pass after it completes books it
// once against the same 3 hours from its creation, in the same location.
struct LedgerHarness : Harness {
  prometheus::Registry ledger_registry;
  ledger::Ledger ledger{ledger_registry};

  LedgerHarness() {
    api.AddJob("batch", "nightly", kHoldStart,
               {{kRuntimeAnnotation, "3h"}, {kDeadlineAnnotation, "20h"}}, /*suspend=*/false);
    api.Update("jobs", "batch", "nightly",
               {{"spec",
                 {{"parallelism", 2},
                  {"template",
                   {{"spec",
                     {{"containers",
                       {{{"name", "work"},
                         {"resources", {{"requests", {{"cpu", "4"}, {"memory", "8G"}}}}}}}}}}}}}}});
  }
  void Ran(absl::Time from, absl::Duration runtime) {
    api.Update("jobs", "batch", "nightly",
               {{"status",
                 {{"startTime", AnnotationTime(from)},
                  {"completionTime", AnnotationTime(from + runtime)}}}});
  }
  double Grams(const std::string& basis, const std::string& mode) {
    return testing::CounterValue(ledger_registry, "carbonroute_ledger_emissions_grams_total",
                                 {{"controller", "hold"}, {"mode", mode}, {"basis", basis}});
  }
};

// The mean of hours [first, first + 3) at `location`, by hand.
double ThreeHours(const std::string& location, int first) {
  return (Intensity(location, first) + Intensity(location, first + 1) +
          Intensity(location, first + 2)) /
         3;
}

// 2 × (4 × 2.12 + 8 × 0.392) W = 23.232 W over 3 h: 0.069696 kWh.
constexpr double kJobKwh = 0.069696;

TEST(HoldController, ARunThatEndedIsBookedInTheLedgerOnceAgainstTheSameRunAtCreation) {
  LedgerHarness h;
  h.api.Update("jobs", "batch", "nightly", {{"spec", {{"suspend", true}}}});
  HoldController controller(HoldControllerOptions{}, {h.kube, h.clock}, h.forecasts, h.metrics,
                            &h.ledger);
  const auto [start, mean] = BestStart({"DE", "FR"}, kHoldStart, 3, kHoldStart + absl::Hours(20));
  h.RunUntil(controller, start + absl::Minutes(1));
  const std::string location = h.Annotation("jobs", "nightly", kReleaseLocationAnnotation);
  ASSERT_THAT(location, ::testing::AnyOf("DE", "FR"));
  EXPECT_EQ(AnnotationIntensity(
                ThreeHours(location, static_cast<int>((start - kHoldStart) / absl::Hours(1)))),
            AnnotationIntensity(mean));
  h.Ran(start, absl::Hours(3));
  h.RunUntil(controller, start + absl::Hours(5));
  EXPECT_NEAR(h.Grams("chosen", "enforced"), kJobKwh * mean, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual", "enforced"), kJobKwh * ThreeHours(location, 0), 1e-9);
  EXPECT_EQ(testing::CounterValue(h.ledger_registry, "carbonroute_ledger_decisions_total",
                                  {{"controller", "hold"}, {"outcome", "moved"}}),
            1);
}

// Shadow mode: the Job runs at once; what carbonroute would have done (its plan when it first
// saw the Job) is booked against what ran, once the plan's hours have passed; nothing written.
TEST(HoldController, ADryRunBooksItsPlanAgainstWhatRanAndWritesNothing) {
  LedgerHarness h;
  HoldControllerOptions options;
  options.dry_run = true;
  HoldController controller(options, {h.kube, h.clock, nullptr, &h.events}, h.forecasts, h.metrics,
                            &h.ledger);
  controller.RunOnce();
  const std::vector<nlohmann::json> events = h.api.events();
  ASSERT_EQ(events.size(), 1u);
  const std::string message = events[0]["message"];
  const std::string location = message.substr(message.find(" in ") + 4, 2);
  const auto [start, mean] = BestStart({location}, kHoldStart, 3, kHoldStart + absl::Hours(20));
  h.Ran(kHoldStart, absl::Hours(3));
  h.RunUntil(controller, start + absl::Hours(2));
  EXPECT_TRUE(std::isnan(h.Grams("chosen", "shadow")));  // the plan's hours are still to come
  h.RunUntil(controller, start + absl::Hours(4));
  EXPECT_NEAR(h.Grams("chosen", "shadow"), kJobKwh * mean, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual", "shadow"), kJobKwh * ThreeHours(location, 0), 1e-9);
  for (const testing::FakeApiCall& call : h.api.calls()) {
    EXPECT_TRUE(call.method == "GET" || absl::StrContains(call.target, "/events"))
        << call.method << " " << call.target;
  }
}

TEST(HoldController, APodLosesOnlyItsGate) {
  Harness h;
  h.api.AddPod(
      "batch", "render", kHoldStart,
      {{kRuntimeAnnotation, "1h"}, {kDeadlineAnnotation, "6h"}, {kLocationsAnnotation, "FR"}},
      {"example.com/quota", "carbonroute.io/clean-window"});
  auto controller = h.Controller();
  h.RunUntil(*controller, kHoldStart + absl::Hours(8));
  const nlohmann::json pod = h.api.Get("pods", "batch", "render");
  ASSERT_EQ(pod["spec"]["schedulingGates"].size(), 1u);
  EXPECT_EQ(pod["spec"]["schedulingGates"][0]["name"], "example.com/quota");
  const auto [start, mean] = BestStart({"FR"}, kHoldStart, 1, kHoldStart + absl::Hours(6));
  EXPECT_EQ(h.Annotation("pods", "render", kReleasedAtAnnotation), AnnotationTime(start));
}

TEST(HoldController, FailsOpenAtOnce) {
  Harness h;
  // Past its latest start when the controller starts (a restart after a long outage).
  h.api.AddJob("batch", "late", kHoldStart - absl::Hours(10),
               {{kRuntimeAnnotation, "2h"}, {kDeadlineAnnotation, "11h"}});
  // No forecast covers its locations.
  h.api.AddJob(
      "batch", "nowhere", kHoldStart,
      {{kRuntimeAnnotation, "2h"}, {kDeadlineAnnotation, "11h"}, {kLocationsAnnotation, "XX"}});
  // Malformed annotations.
  h.api.AddJob("batch", "typo", kHoldStart,
               {{kRuntimeAnnotation, "two hours"}, {kDeadlineAnnotation, "11h"}});
  // Opted in, but not suspended: left alone.
  h.api.AddJob("batch", "running", kHoldStart,
               {{kRuntimeAnnotation, "2h"}, {kDeadlineAnnotation, "11h"}},
               /*suspend=*/false);
  auto controller = h.Controller();
  controller->RunOnce();
  EXPECT_EQ(h.Annotation("jobs", "late", kReleaseReasonAnnotation), "deadline");
  EXPECT_EQ(h.Annotation("jobs", "nowhere", kReleaseReasonAnnotation), "no_forecast");
  EXPECT_EQ(h.Annotation("jobs", "typo", kReleaseReasonAnnotation), "invalid");
  for (const char* name : {"late", "nowhere", "typo"}) {
    EXPECT_EQ(h.api.Get("jobs", "batch", name)["spec"]["suspend"], false) << name;
    EXPECT_EQ(h.Annotation("jobs", name, kReleasedAtAnnotation), AnnotationTime(kHoldStart))
        << name;
  }
  EXPECT_EQ(h.Patches("/apis/batch/v1/namespaces/batch/jobs/running"), 0);
  EXPECT_THAT(h.log.text(), HasSubstr("Job batch/running opted in but is not held"));
  EXPECT_THAT(h.log.text(), HasSubstr("Job batch/typo released at once (invalid): "
                                      "carbonroute.io/expected-runtime"));
  EXPECT_THAT(h.Metrics(),
              HasSubstr("carbonroute_hold_releases_total{kind=\"Job\",reason=\"invalid\"} 1"));
}

TEST(HoldController, ANewForecastThatMovesTheWindowMovesThePlanShown) {
  Harness h;
  h.api.AddJob(
      "batch", "nightly", kHoldStart,
      {{kRuntimeAnnotation, "1h"}, {kDeadlineAnnotation, "20h"}, {kLocationsAnnotation, "DE"}});
  auto controller = h.Controller();
  controller->RunOnce();
  const auto [start, mean] = BestStart({"DE"}, kHoldStart, 1, kHoldStart + absl::Hours(20));
  EXPECT_EQ(h.Annotation("jobs", "nightly", kReleaseAtAnnotation), AnnotationTime(start));
  // The next forecast (after --forecast-refresh, 5 min) shows hour 15 far cleaner.
  ASSERT_NE(start, kHoldStart + absl::Hours(15));
  h.forecasts.dip_hour = 15;
  h.clock.Advance(absl::Minutes(6));
  controller->RunOnce();
  EXPECT_EQ(h.Annotation("jobs", "nightly", kReleaseAtAnnotation),
            AnnotationTime(kHoldStart + absl::Hours(15)));
  EXPECT_EQ(h.Annotation("jobs", "nightly", kExpectedIntensityAnnotation), "1.0");
}

TEST(FakeBatchApi, AGateCannotBeAddedAfterCreation) {
  testing::FakeBatchApi api([] { return kHoldStart; });
  api.AddPod("batch", "p", kHoldStart, {}, {});
  const auto [status, body] =
      api.Handle("PATCH", "/api/v1/namespaces/batch/pods/p", "application/merge-patch+json",
                 R"({"spec":{"schedulingGates":[{"name":"carbonroute.io/clean-window"}]}})");
  EXPECT_EQ(status, 422);
  EXPECT_THAT(body, HasSubstr("only deletion is allowed"));
}

TEST(HoldController, WhenTheLeaderStopsTheOtherReplicaTakesOverAfterTheLease) {
  Harness h;
  h.api.AddJob("batch", "early", kHoldStart,
               {{kRuntimeAnnotation, "1h"}, {kDeadlineAnnotation, "1h"}});
  h.api.AddJob("batch", "later", kHoldStart,
               {{kRuntimeAnnotation, "1h"}, {kDeadlineAnnotation, "6h"}});
  kube::LeaseElection a({"carbonroute", "carbonroute-hold", "replica-a", absl::Seconds(15)},
                        h.kube);
  kube::LeaseElection b({"carbonroute", "carbonroute-hold", "replica-b", absl::Seconds(15)},
                        h.kube);
  auto first = h.Controller(&a);
  auto second = h.Controller(&b);
  first->RunOnce();
  second->RunOnce();
  EXPECT_EQ(first->releases().size(), 1u);  // "early": past its latest start at once
  EXPECT_TRUE(second->releases().empty());
  // replica-a stops; replica-b keeps going and takes the Lease once it has expired.
  for (absl::Time t = kHoldStart; t < kHoldStart + absl::Hours(6); t += absl::Seconds(5)) {
    h.clock.Advance(t - h.clock.Now());
    second->RunOnce();
  }
  EXPECT_EQ(second->releases().size(), 1u);
  EXPECT_EQ(h.api.Get("leases", "carbonroute", "carbonroute-hold")["spec"]["holderIdentity"],
            "replica-b");
  EXPECT_EQ(h.api.Get("leases", "carbonroute", "carbonroute-hold")["spec"]["leaseTransitions"], 1);
}

TEST(HoldController, AJobDeletedWhileHeldIsForgotten) {
  Harness h;
  h.api.AddJob("batch", "gone", kHoldStart,
               {{kRuntimeAnnotation, "3h"}, {kDeadlineAnnotation, "20h"}});
  auto controller = h.Controller();
  controller->RunOnce();
  h.api.Delete("jobs", "batch", "gone");
  h.RunUntil(*controller, kHoldStart + absl::Hours(20));
  EXPECT_TRUE(controller->releases().empty());
  EXPECT_THAT(h.Metrics(), HasSubstr("carbonroute_hold_errors_total{operation=\"patch\"} 0"));
}

TEST(HoldController, ARestartKeepsThePlanAndTheIntensityAtCreation) {
  Harness h;
  h.api.AddJob("batch", "nightly", kHoldStart,
               {{kRuntimeAnnotation, "3h"}, {kDeadlineAnnotation, "20h"}});
  auto first = h.Controller();
  first->RunOnce();
  const std::string at_creation = h.Annotation("jobs", "nightly", kCreationIntensityAnnotation);
  ASSERT_FALSE(at_creation.empty());
  first.reset();  // the controller restarts an hour later
  h.clock.Advance(absl::Hours(1));
  auto second = h.Controller();
  h.RunUntil(*second, kHoldStart + absl::Hours(30));
  ASSERT_EQ(second->releases().size(), 1u);
  EXPECT_EQ(AnnotationIntensity(*second->releases()[0].intensity_at_creation), at_creation);
  EXPECT_EQ(h.Annotation("jobs", "nightly", kCreationIntensityAnnotation), at_creation);
}

TEST(HoldController, TwoReplicasWithALeaseExactlyOneActs) {
  Harness h;
  for (int i = 0; i < 5; ++i) {
    h.api.AddJob("batch", absl::StrCat("job-", i), kHoldStart,
                 {{kRuntimeAnnotation, absl::StrCat(i + 1, "h")}, {kDeadlineAnnotation, "18h"}});
  }
  kube::LeaseElection a({"carbonroute", "carbonroute-hold", "replica-a", absl::Seconds(15)},
                        h.kube);
  kube::LeaseElection b({"carbonroute", "carbonroute-hold", "replica-b", absl::Seconds(15)},
                        h.kube);
  auto first = h.Controller(&a);
  auto second = h.Controller(&b);
  // Both run, interleaved, pass by pass, as two Pods would.
  for (absl::Time t = kHoldStart; t < kHoldStart + absl::Hours(20); t += absl::Minutes(5)) {
    h.clock.Advance(t - h.clock.Now());
    first->RunOnce();
    second->RunOnce();
  }
  EXPECT_EQ(first->releases().size() + second->releases().size(), 5u);
  EXPECT_TRUE(first->releases().empty() || second->releases().empty());
  for (int i = 0; i < 5; ++i) {
    const std::string path = absl::StrCat("/apis/batch/v1/namespaces/batch/jobs/job-", i);
    int releases = 0;
    for (const testing::FakeApiCall& call : h.api.calls()) {
      releases += call.target == path && absl::StrContains(call.body, "released-at");
    }
    EXPECT_EQ(releases, 1) << path;
  }
  EXPECT_EQ(h.api.Get("leases", "carbonroute", "carbonroute-hold")["spec"]["holderIdentity"],
            "replica-a");
}

TEST(HoldController, ListsPageByPageAndStartsAgainOnAnExpiredToken) {
  Harness h;
  for (int i = 0; i < 7; ++i) {
    h.api.AddJob("batch", absl::StrCat("job-", i), kHoldStart,
                 {{kRuntimeAnnotation, "1h"}, {kDeadlineAnnotation, "3h"}});
  }
  h.api.AddJob("batch", "other", kHoldStart, {}, true, {{"team", "x"}});  // not selected
  h.api.ExpireContinueTokens(1);
  absl::StatusOr<ObjectList> jobs =
      ListHeld(h.kube, HeldKind::kJob, "carbonroute.io/defer=true", 3);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(jobs->items.size(), 7u);
  EXPECT_FALSE(jobs->resource_version.empty());
}

// One CronJob's runs over a simulated day on the shipped 2022 trace (DE, the
// forecast the replay provider would serve: the trace itself): every 6 hours
// a run is created suspended with a 6-hour deadline and a 1-hour runtime.
// Each is released at the cleanest hour of its window, never after its latest
// start, and never at a dirtier hour than running at once.
class TraceForecasts final : public ForecastSource {
 public:
  explicit TraceForecasts(const IntensityTrace& trace) : trace_(trace) {}
  absl::StatusOr<std::vector<std::string>> Locations() override {
    return std::vector<std::string>{"DE"};
  }
  absl::StatusOr<std::vector<ForecastPoint>> Forecast(const std::string& location) override {
    const std::optional<std::size_t> column = trace_.ZoneIndex(location);
    if (!column) return absl::NotFoundError(location);
    std::vector<ForecastPoint> points;
    const absl::Time start =
        absl::FromCivil(absl::CivilHour(trace_.year(), 1, 1, 0), absl::UTCTimeZone());
    for (std::size_t h = 0; h < trace_.hours(); ++h) {
      const absl::Time from = start + absl::Hours(static_cast<int64_t>(h));
      points.push_back({from, from + absl::Hours(1), *trace_.Value(*column, h)});
    }
    return points;
  }
  absl::StatusOr<ObservedMean> Observed(const std::string&, absl::Time, absl::Time) override {
    return absl::UnimplementedError("no ledger in this test");
  }

 private:
  const IntensityTrace& trace_;
};

TEST(HoldController, ACronJobsRunsOverADayOnTheShippedTrace) {
  absl::StatusOr<IntensityTrace> trace = IntensityTrace::Load(
      absl::StrCat(CARBONROUTE_SOURCE_DIR, "/data/carbon-intensity-2022-hourly.csv"));
  ASSERT_TRUE(trace.ok()) << trace.status();
  const absl::Time day = absl::FromCivil(absl::CivilHour(2022, 6, 15, 0), absl::UTCTimeZone());
  FakeClock clock(day);
  FakeBatchApi api([&clock] { return clock.Now(); });
  kube::KubeClient kube(kube::KubeConnection{.server = "http://fake"}, api);
  TraceForecasts forecasts(*trace);
  prometheus::Registry registry;
  HoldMetrics metrics(registry);
  HoldController controller({}, {kube, clock}, forecasts, metrics);
  const std::size_t column = *trace->ZoneIndex("DE");
  const std::size_t first_hour = static_cast<std::size_t>(
      (day - absl::FromCivil(absl::CivilHour(2022, 1, 1, 0), absl::UTCTimeZone())) /
      absl::Hours(1));
  double at_once = 0, held = 0;
  std::printf(
      "run   created  released  intensity at release  at once (gCO2eq/kWh, DE, 2022-06-15)\n");
  for (int run = 0; run < 4; ++run) {
    const absl::Time created = day + absl::Hours(6 * run);
    const std::string name = absl::StrCat("model-retrain-", run);
    api.AddJob("default", name, created, {{kRuntimeAnnotation, "1h"}, {kDeadlineAnnotation, "6h"}});
    absl::Notification stop;
    clock.StopAt(created + absl::Hours(6));
    controller.Run(stop);
    const nlohmann::json job = api.Get("jobs", "default", name);
    ASSERT_EQ(job["spec"]["suspend"], false) << name;
    absl::Time released;
    std::string error;
    ASSERT_TRUE(
        absl::ParseTime(absl::RFC3339_full,
                        job["metadata"]["annotations"][kReleasedAtAnnotation].get<std::string>(),
                        &released, &error));
    EXPECT_LE(released, created + absl::Hours(5));  // its latest start
    const std::size_t h0 = first_hour + 6 * static_cast<std::size_t>(run);
    double best = INFINITY;
    for (std::size_t h = h0; h < h0 + 6; ++h) best = std::min(best, *trace->Value(column, h));
    const double now_value = *trace->Value(column, h0);
    const double released_value = *trace->Value(
        column, first_hour + static_cast<std::size_t>((released - day) / absl::Hours(1)));
    EXPECT_DOUBLE_EQ(released_value, best) << name;
    EXPECT_LE(released_value, now_value);
    at_once += now_value;
    held += released_value;
    std::printf("%d     %s    %s     %8.1f              %8.1f\n", run,
                absl::FormatTime("%H:%M", created, absl::UTCTimeZone()).c_str(),
                absl::FormatTime("%H:%M", released, absl::UTCTimeZone()).c_str(), released_value,
                now_value);
  }
  std::printf("mean: held %.1f, at once %.1f gCO2eq/kWh (%.1f %% less)\n", held / 4, at_once / 4,
              100 * (at_once - held) / at_once);
  EXPECT_LT(held, at_once);
}

}  // namespace
}  // namespace carbonroute::hold
