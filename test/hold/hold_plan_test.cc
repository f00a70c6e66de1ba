#include "hold/hold_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hold/held_object.h"

namespace carbonroute::hold {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const absl::Time kT0 = absl::FromUnixSeconds(1764000000);  // 2025-11-24T16:00:00Z

HeldObject Job(std::map<std::string, std::string> annotations) {
  HeldObject job;
  job.kind = HeldKind::kJob;
  job.namespace_name = "batch";
  job.name = "nightly";
  job.created = kT0;
  job.suspended = true;
  job.annotations = std::move(annotations);
  return job;
}

std::vector<ForecastPoint> Hourly(absl::Time from, std::vector<double> values) {
  std::vector<ForecastPoint> points;
  for (std::size_t h = 0; h < values.size(); ++h) {
    const absl::Time start = from + absl::Hours(static_cast<int64_t>(h));
    points.push_back({start, start + absl::Hours(1), values[h]});
  }
  return points;
}

TEST(ReadHoldTerms, DeadlinesAbsoluteOrAfterCreationAndMistakesNamed) {
  absl::StatusOr<HoldTerms> terms =
      ReadHoldTerms(Job({{kRuntimeAnnotation, "2h"}, {kDeadlineAnnotation, "12h"}}));
  ASSERT_TRUE(terms.ok()) << terms.status();
  EXPECT_EQ(terms->deadline, kT0 + absl::Hours(12));
  EXPECT_EQ(terms->runtime, absl::Hours(2));
  terms = ReadHoldTerms(Job({{kRuntimeAnnotation, "90m"},
                             {kDeadlineAnnotation, "2025-11-25T06:00:00Z"},
                             {kLocationsAnnotation, "DE, FR"}}));
  ASSERT_TRUE(terms.ok()) << terms.status();
  EXPECT_EQ(terms->deadline, kT0 + absl::Hours(14));
  EXPECT_THAT(terms->locations, ElementsAre("DE", "FR"));

  EXPECT_THAT(ReadHoldTerms(Job({{kDeadlineAnnotation, "12h"}})).status().message(),
              HasSubstr("carbonroute.io/expected-runtime is missing"));
  EXPECT_THAT(ReadHoldTerms(Job({{kRuntimeAnnotation, "soon"}, {kDeadlineAnnotation, "12h"}}))
                  .status()
                  .message(),
              HasSubstr("carbonroute.io/expected-runtime: \"soon\""));
  EXPECT_THAT(ReadHoldTerms(Job({{kRuntimeAnnotation, "1h"}, {kDeadlineAnnotation, "tomorrow"}}))
                  .status()
                  .message(),
              HasSubstr("carbonroute.io/deadline: \"tomorrow\""));
  EXPECT_THAT(ReadHoldTerms(Job({{kRuntimeAnnotation, "1h"},
                                 {kDeadlineAnnotation, "2h"},
                                 {kLocationsAnnotation, " , "}}))
                  .status()
                  .message(),
              HasSubstr("carbonroute.io/locations"));
}

TEST(LocationsFor, AnnotationThenNodeSelectorThenTheCluster) {
  HeldObject job = Job({});
  const std::map<std::string, std::string> regions = {{"europe-west3", "DE"}};
  const std::vector<std::string> cluster = {"DE", "FR", "PL"};
  HoldTerms annotated;
  annotated.locations = {"SE"};
  EXPECT_THAT(LocationsFor(job, annotated, regions, cluster), ElementsAre("SE"));
  EXPECT_THAT(LocationsFor(job, {}, regions, cluster), ElementsAre("DE", "FR", "PL"));
  job.node_selector = {{"topology.kubernetes.io/region", "europe-west3"}};
  EXPECT_THAT(LocationsFor(job, {}, regions, cluster), ElementsAre("DE"));
  job.node_selector = {{"carbonroute.io/location", "FR"}};
  EXPECT_THAT(LocationsFor(job, {}, regions, cluster), ElementsAre("FR"));
}

// Two locations, hourly forecasts from T0. A 2-hour job with its deadline at
// T0 + 6h (latest start T0 + 4h). Candidate means: DE starts 0..4: (300+200)/2
// = 250, 150, 125, 175, 250; FR: 220, 210, 200, 190, 180. Cleanest: DE at T0 + 2h, 125.
TEST(PlanRelease, TheCleanestWindowOverEveryLocation) {
  Forecasts forecasts = {{"DE", Hourly(kT0, {300, 200, 100, 150, 200, 300, 400})},
                         {"FR", Hourly(kT0, {220, 220, 200, 200, 180, 180, 180})}};
  const HoldTerms terms{kT0 + absl::Hours(6), absl::Hours(2), {}};
  HoldPlan plan = PlanRelease(terms, kT0, forecasts, {"DE", "FR"});
  EXPECT_EQ(plan.reason, ReleaseReason::kWindow);
  EXPECT_EQ(plan.release_at, kT0 + absl::Hours(2));
  EXPECT_EQ(plan.location, "DE");
  EXPECT_DOUBLE_EQ(*plan.expected_intensity, 125);
  EXPECT_DOUBLE_EQ(*plan.intensity_if_now, 220);  // FR from now: the cleanest run from now

  // At the planned start the plan is "now".
  plan = PlanRelease(terms, kT0 + absl::Hours(2), forecasts, {"DE", "FR"});
  EXPECT_EQ(plan.release_at, kT0 + absl::Hours(2));
  EXPECT_DOUBLE_EQ(*plan.intensity_if_now, 125);
}

TEST(PlanRelease, FailsOpenNeverLate) {
  const Forecasts forecasts = {{"DE", Hourly(kT0, {300, 200, 100, 150})}};
  const HoldTerms terms{kT0 + absl::Hours(6), absl::Hours(2), {}};
  // Past the latest start (T0 + 4h): at once.
  HoldPlan plan = PlanRelease(terms, kT0 + absl::Hours(4), forecasts, {"DE"});
  EXPECT_EQ(plan.reason, ReleaseReason::kDeadline);
  EXPECT_EQ(plan.release_at, kT0 + absl::Hours(4));
  // No forecast for its locations: at once.
  plan = PlanRelease(terms, kT0, forecasts, {"PL"});
  EXPECT_EQ(plan.reason, ReleaseReason::kNoForecast);
  EXPECT_EQ(plan.release_at, kT0);
  EXPECT_THAT(plan.detail, HasSubstr("PL"));
  // Malformed terms: at once, saying why.
  plan = PlanRelease(absl::InvalidArgumentError("carbonroute.io/deadline: \"x\""), kT0, forecasts,
                     {"DE"});
  EXPECT_EQ(plan.reason, ReleaseReason::kInvalid);
  EXPECT_EQ(plan.release_at, kT0);
  EXPECT_THAT(plan.detail, HasSubstr("carbonroute.io/deadline"));
  // The forecast ends before the deadline: the best window it covers.
  plan = PlanRelease(HoldTerms{kT0 + absl::Hours(24), absl::Hours(1), {}}, kT0, forecasts, {"DE"});
  EXPECT_EQ(plan.release_at, kT0 + absl::Hours(2));
}

}  // namespace
}  // namespace carbonroute::hold
