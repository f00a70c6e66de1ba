// scheduler-lite hold with the real Job controller (kube-controller-manager),
// the real default kube-scheduler and kwok's kubelet stand-in, on the real
// API server, as the shipped ServiceAccount carbonroute-hold. The carbon
// role is a stand-in collector (as HoldBinary's) whose forecast for France
// is dirty (900 gCO2eq/kWh) for its first kDirty and clean (100) after, so
// the clean window starts minutes ahead; it answers the Carbon Aware SDK's
// average over any interval from the same step function, which the savings
// ledger reads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "contract/forecast_api.h"
#include "net/http_server.h"
#include "net/url.h"
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
using testing::RealControlPlane;

constexpr double kDirtyGrams = 900, kCleanGrams = 100;
constexpr absl::Duration kDirty = absl::Seconds(30);
constexpr absl::Duration kRun = absl::Seconds(8);  // what kwok lets each Job Pod run
constexpr double kWattsPerCpu = 10, kWattsPerGb = 0;

// The step function: dirty until `clean_from`, clean from then on.
double Intensity(absl::Time t, absl::Time clean_from) {
  return t < clean_from ? kDirtyGrams : kCleanGrams;
}

// The time-weighted mean of the step over [start, end).
double MeanIntensity(absl::Time start, absl::Time end, absl::Time clean_from) {
  if (end <= start) return Intensity(start, clean_from);
  const absl::Time split = std::clamp(clean_from, start, end);
  return (absl::ToDoubleSeconds(split - start) * kDirtyGrams +
          absl::ToDoubleSeconds(end - split) * kCleanGrams) /
         absl::ToDoubleSeconds(end - start);
}

absl::Time QueryTime(const net::HttpServerRequest& request, const std::string& name) {
  absl::Time t;
  std::string error;
  absl::ParseTime(absl::RFC3339_full, net::QueryParameter(request.query, name).value_or(""), &t,
                  &error);
  return t;
}

// The carbon role as hold reads it: /metrics naming France, its forecast (10 s points from
// `base` for 10 minutes), and the SDK's bylocation and average over the same step.
absl::StatusOr<std::unique_ptr<net::HttpServer>> StartForecastingCollector(absl::Time base,
                                                                           absl::Time clean_from) {
  net::HttpServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.routes["/metrics"] = [](const net::HttpServerRequest&) {
    net::HttpServerResponse response;
    response.body =
        "carbonroute_carbon_intensity_grams_per_kilowatt_hour{location=\"FR\",provider=\"fake\","
        "emissions_type=\"average\"} 900\n";
    return response;
  };
  options.routes[forecast_api::kPath] = [base, clean_from](const net::HttpServerRequest& request) {
    net::HttpServerResponse response;
    if (net::QueryParameter(request.query, "location").value_or("") != "FR") {
      response.status = 404;
      response.body = forecast_api::EncodeError("no such location");
      return response;
    }
    ForecastAnswer answer{"FR", {{"fake", EmissionsType::kAverage, {}}}};
    for (absl::Time t = base; t < base + absl::Minutes(10); t += absl::Seconds(10)) {
      answer.series[0].points.push_back({t, t + absl::Seconds(10), Intensity(t, clean_from)});
    }
    response.content_type = "application/json";
    response.body = forecast_api::EncodeAnswer(answer);
    return response;
  };
  options.routes["/emissions/bylocation"] = [](const net::HttpServerRequest&) {
    net::HttpServerResponse response;
    response.content_type = "application/json";
    response.body =
        R"([{"location":"FR","time":"2026-01-01T00:00:00Z","rating":1,"duration":"00:00:10"}])";
    return response;
  };
  options.routes["/emissions/average-carbon-intensity"] =
      [clean_from](const net::HttpServerRequest& request) {
        const absl::Time start = QueryTime(request, "startTime"),
                         end = QueryTime(request, "endTime");
        net::HttpServerResponse response;
        response.content_type = "application/json";
        response.body = absl::StrCat(R"({"location":"FR","carbonIntensity":)",
                                     MeanIntensity(start, end, clean_from), "}");
        return response;
      };
  return net::HttpServer::Start(std::move(options));
}

absl::Time FieldTime(const RealControlPlane& plane, const std::string& object,
                     const std::string& namespace_name, const std::string& jsonpath) {
  absl::Time t = absl::InfinitePast();
  std::string error;
  absl::ParseTime(absl::RFC3339_full, Field(plane, object, namespace_name, jsonpath), &t, &error);
  return t;
}

std::string HeldJob(const std::string& namespace_name, const std::string& name,
                    const std::string& deadline) {
  return absl::StrCat(R"(apiVersion: batch/v1
kind: Job
metadata:
  name: )",
                      name, "\n  namespace: ", namespace_name, R"(
  labels: {carbonroute.io/defer: "true"}
  annotations:
    carbonroute.io/deadline: ")",
                      deadline, R"("
    carbonroute.io/expected-runtime: "10s"
    carbonroute.io/locations: "FR"
spec:
  suspend: true
  backoffLimit: 0
  template:
    metadata:
      annotations:
        pod-complete.stage.kwok.x-k8s.io/delay: "8s"
        pod-complete.stage.kwok.x-k8s.io/jitter-delay: "8s"
    spec:
      restartPolicy: Never
      containers:
        - name: work
          image: busybox
          resources: {requests: {cpu: "1", memory: 64Mi}}
)");
}

class HoldWithTheJobController : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()) / 10 * 10);
    clean_from_ = base_ + kDirty;
    absl::StatusOr<std::unique_ptr<net::HttpServer>> collector =
        StartForecastingCollector(base_, clean_from_);
    ASSERT_TRUE(collector.ok()) << collector.status();
    collector_ = *std::move(collector);
    absl::StatusOr<std::string> kubeconfig =
        plane_.ServiceAccountKubeconfig("carbonroute", "carbonroute-hold");
    ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.status();
    metrics_port_ = testing::FreeLoopbackPort();
    hold_ = std::make_unique<testing::Subprocess>(
        std::vector<std::string>{
            CARBONROUTE_SCHEDULER_LITE_BINARY, "hold", "--kubeconfig=" + *kubeconfig,
            absl::StrCat("--collector=http://127.0.0.1:", collector_->port()),
            absl::StrCat("--web.listen-address=127.0.0.1:", metrics_port_), "--resync=2s",
            "--forecast-refresh=5s", "--lease-namespace=carbonroute", "--identity=hold-test",
            absl::StrCat("--watts-per-cpu=", kWattsPerCpu),
            absl::StrCat("--watts-per-gb=", kWattsPerGb),
            absl::StrCat("--data-dir=", CARBONROUTE_SOURCE_DIR, "/data")},
        dir_.File("hold.log"));
  }
  void TearDown() override {
    plane_.Kubectl("delete namespace --wait=false " + namespace_).IgnoreError();
  }
  // Whether hold wrote its plan (carbonroute.io/release-at) on `object` within 30 s.
  bool WaitPlanned(const std::string& object) {
    const bool planned = testing::WaitFor(
        [&] {
          return !Field(plane_, object, namespace_,
                        "{.metadata.annotations.carbonroute\\.io/release-at}")
                      .empty();
        },
        absl::Seconds(30));
    if (!planned) ADD_FAILURE() << object << " has no plan: " << hold_->Log();
    return planned;
  }
  std::string PodsOf(const std::string& job) {
    absl::StatusOr<std::string> pods = plane_.Kubectl(
        absl::StrCat("get pods -n ", namespace_, " -l batch.kubernetes.io/job-name=", job,
                     " -o jsonpath='{.items[*].metadata.name}'"));
    return pods.ok() ? *pods : "error";
  }

  testing::ScopedTempDir dir_;
  RealControlPlane& plane_ = testing::SharedControlPlane();
  std::string namespace_ = plane_.NewNamespace();
  absl::Time base_, clean_from_;
  std::unique_ptr<net::HttpServer> collector_;
  int metrics_port_ = 0;
  std::unique_ptr<testing::Subprocess> hold_;
};

// A Job created suspended gets no Pod until hold releases it at the clean window; then the
// Job controller creates its Pod, the scheduler binds it, kwok runs it for 8 s and the Job
// completes. The ledger prices the hours it ran (clean) against the same run from its
// creation (dirty), from the Job's own status times.
TEST_F(HoldWithTheJobController, AHeldJobGetsPodsOnlyOnceReleasedAtTheCleanWindowAndIsBooked) {
  ASSERT_TRUE(plane_.Apply(HeldJob(namespace_, "report", "5m")).ok());
  // Held: hold wrote its plan, and the Job controller made no Pod.
  ASSERT_TRUE(WaitPlanned("job report"));
  EXPECT_EQ(Field(plane_, "job report", namespace_, "{.spec.suspend}"), "true");
  EXPECT_EQ(PodsOf("report"), "");
  // Released at the clean window, not before it: then a Pod, bound, run and completed.
  ASSERT_TRUE(testing::WaitFor(
      [&] { return Field(plane_, "job report", namespace_, "{.spec.suspend}") == "false"; },
      kDirty + absl::Seconds(60)))
      << hold_->Log();
  EXPECT_GE(absl::Now(), clean_from_);
  EXPECT_EQ(Field(plane_, "job report", namespace_,
                  "{.metadata.annotations.carbonroute\\.io/release-reason}"),
            "window");
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return Field(plane_, "job report", namespace_,
                     "{.status.conditions[?(@.type==\"Complete\")].status}") == "True";
      },
      absl::Seconds(90)))
      << hold_->Log() << PodsOf("report");
  EXPECT_NE(PodsOf("report"), "");
  EXPECT_THAT(testing::EventsOf(plane_, namespace_, "Job", "report"),
              HasSubstr("CleanWindowRelease"));

  // By hand: 1 CPU × 10 W over the Job's [startTime, completionTime], at 100 gCO2eq/kWh
  // (it ran clean) against the same seconds from its creation, at 900 (dirty: the creation
  // was less than kDirty − the run before the clean window).
  const absl::Time created =
      FieldTime(plane_, "job report", namespace_, "{.metadata.creationTimestamp}");
  const absl::Time started = FieldTime(plane_, "job report", namespace_, "{.status.startTime}");
  const absl::Time completed =
      FieldTime(plane_, "job report", namespace_, "{.status.completionTime}");
  const double seconds = absl::ToDoubleSeconds(completed - started);
  ASSERT_GE(seconds, absl::ToDoubleSeconds(kRun) - 1);
  const double kwh = kWattsPerCpu * seconds / 3.6e6;
  const double chosen = kwh * MeanIntensity(started, completed, clean_from_);
  const double counterfactual =
      kwh * MeanIntensity(created, created + (completed - started), clean_from_);
  const std::vector<std::string> hold = {"controller=\"hold\"", "namespace=\"" + namespace_ + "\""};
  auto grams = [&](const std::string& basis) {
    std::vector<std::string> parts = hold;
    parts.push_back("carbonroute_ledger_emissions_grams_total{");
    parts.push_back("basis=\"" + basis + "\"");
    return testing::SeriesValue(testing::HttpGet(metrics_port_, "/metrics"), parts);
  };
  ASSERT_TRUE(testing::WaitFor([&] { return grams("chosen") > 0; }, absl::Seconds(60)))
      << testing::HttpGet(metrics_port_, "/metrics") << hold_->Log();
  EXPECT_NEAR(grams("chosen"), chosen, chosen * 1e-6);
  EXPECT_NEAR(grams("counterfactual"), counterfactual, counterfactual * 1e-6);
  EXPECT_DOUBLE_EQ(counterfactual / chosen, kDirtyGrams / kCleanGrams);
}

// A Job whose latest start (deadline 5 s − runtime 10 s) has passed when hold first sees it:
// released at once for its deadline, with a Warning Event; its Pod only then.
TEST_F(HoldWithTheJobController, AJobPastItsLatestStartIsReleasedAtOnceForItsDeadline) {
  ASSERT_TRUE(plane_.Apply(HeldJob(namespace_, "urgent", "5s")).ok());
  ASSERT_TRUE(testing::WaitFor(
      [&] { return Field(plane_, "job urgent", namespace_, "{.spec.suspend}") == "false"; },
      absl::Seconds(60)))
      << hold_->Log();
  EXPECT_LT(absl::Now(), clean_from_);
  EXPECT_EQ(Field(plane_, "job urgent", namespace_,
                  "{.metadata.annotations.carbonroute\\.io/release-reason}"),
            "deadline");
  EXPECT_THAT(
      Field(plane_, "events", namespace_, "{.items[?(@.reason==\"CleanWindowRelease\")].type}"),
      HasSubstr("Warning"));
  EXPECT_TRUE(testing::WaitFor([&] { return !PodsOf("urgent").empty(); }, absl::Seconds(30)));
}

// A Pod created with the scheduling gate stays SchedulingGated for the real scheduler until
// hold removes the gate at the clean window; then the default scheduler binds it.
TEST_F(HoldWithTheJobController, AGatedPodIsBoundByTheRealSchedulerOnlyAfterTheGateGoes) {
  ASSERT_TRUE(plane_
                  .Apply(absl::StrCat(R"(apiVersion: v1
kind: Pod
metadata:
  name: gated
  namespace: )",
                                      namespace_, R"(
  labels: {carbonroute.io/defer: "true"}
  annotations:
    carbonroute.io/deadline: "5m"
    carbonroute.io/expected-runtime: "10s"
    carbonroute.io/locations: "FR"
spec:
  schedulingGates: [{name: carbonroute.io/clean-window}]
  containers:
    - name: work
      image: busybox
      resources: {requests: {cpu: 100m, memory: 64Mi}}
)"))
                  .ok());
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return Field(plane_, "pod gated", namespace_,
                     "{.status.conditions[?(@.type==\"PodScheduled\")].reason}") ==
               "SchedulingGated";
      },
      absl::Seconds(30)));
  ASSERT_TRUE(WaitPlanned("pod gated"));
  EXPECT_EQ(Field(plane_, "pod gated", namespace_, "{.spec.nodeName}"), "");
  ASSERT_TRUE(testing::WaitFor(
      [&] { return !Field(plane_, "pod gated", namespace_, "{.spec.nodeName}").empty(); },
      kDirty + absl::Seconds(60)))
      << hold_->Log();
  EXPECT_GE(absl::Now(), clean_from_);
  EXPECT_EQ(Field(plane_, "pod gated", namespace_, "{.spec.schedulingGates}"), "");
}

}  // namespace
}  // namespace carbonroute
