#include "hold/hold_ledger.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "test/testing/counter_value.h"

namespace carbonroute::hold {
namespace {

const absl::Time kCreation = absl::FromUnixSeconds(1795600800);  // 2026-11-25T10:00:00Z

// Hourly readings from kCreation: the value of hour h at a location, and the hours
// the collectors hold no reading for (yet).
class HourlyReadings final : public ForecastSource {
 public:
  absl::StatusOr<std::vector<std::string>> Locations() override {
    return std::vector<std::string>{"DE"};
  }
  absl::StatusOr<std::vector<ForecastPoint>> Forecast(const std::string&) override {
    return absl::UnimplementedError("not read by the ledger");
  }
  // The time-weighted mean, as the SDK's average-carbon-intensity computes it.
  absl::StatusOr<ObservedMean> Observed(const std::string& location, absl::Time start,
                                        absl::Time end) override {
    ++asked;
    if (!hourly.contains(location)) return absl::NotFoundError("no " + location);
    double weighted = 0;
    for (absl::Time t = start; t < end;) {
      const int64_t hour = (t - kCreation) / absl::Hours(1);
      if (missing.contains(hour)) return absl::NotFoundError(absl::StrCat("no hour ", hour));
      const absl::Time next = std::min(end, kCreation + absl::Hours(hour + 1));
      weighted += hourly[location](hour) * absl::ToDoubleSeconds(next - t);
      t = next;
    }
    return ObservedMean{weighted / absl::ToDoubleSeconds(end - start), type};
  }
  std::map<std::string, std::function<double(int64_t)>> hourly;
  std::set<int64_t> missing;
  EmissionsType type = EmissionsType::kAverage;
  int asked = 0;
};

struct BookingHarness {
  prometheus::Registry registry;
  ledger::Ledger ledger{registry};
  HourlyReadings readings;

  BookingHarness() {
    // DE: 400 g in the morning hours 0–5, 100 from hour 6 on.
    readings.hourly["DE"] = [](int64_t hour) { return hour < 6 ? 400.0 : 100.0; };
  }
  HoldLedger Ledger(ledger::LedgerMode mode) {
    HoldLedger hold_ledger(ledger, mode, readings, ledger::PowerModel{});
    hold_ledger.LeadingSince(kCreation);
    return hold_ledger;
  }
  double Value(const std::string& name, const std::map<std::string, std::string>& labels) {
    return testing::CounterValue(registry, name, labels);
  }
  double Grams(const std::string& basis, const std::string& mode = "enforced") {
    return Value("carbonroute_ledger_emissions_grams_total", {{"controller", "hold"},
                                                              {"namespace", "batch"},
                                                              {"mode", mode},
                                                              {"emissions_type", "average"},
                                                              {"basis", basis}});
  }
};

// A Job created at kCreation, released in DE at hour 6, that ran 2 h 30 min with 2 Pods of 4 cores
// and 8 GB each.
HeldObject ReleasedJob() {
  HeldObject job;
  job.kind = HeldKind::kJob;
  job.namespace_name = "batch";
  job.name = "nightly";
  job.uid = "uid-1";
  job.created = kCreation;
  job.annotations = {{kReleasedAtAnnotation, "2026-11-25T16:00:00Z"},
                     {kReleaseLocationAnnotation, "DE"}};
  job.started = kCreation + absl::Hours(6) + absl::Seconds(4);
  job.finished = *job.started + absl::Minutes(150);
  job.requests =
      kube::WorkloadRequests{.replicas = 2, .per_replica = {.cpu_cores = 4, .memory_bytes = 8e9}};
  return job;
}

// By hand: 2 × (4 × 2.12 + 8 × 0.392) = 23.232 W over 9,000 s = 209,088 J = 0.05808 kWh.
// Chosen, hours 6–8½ at 100 g: 5.808 g. Run at once, hours 0–2½ at 400 g: 23.232 g.
TEST(HoldLedger, ARunIsPricedWhereItRanAgainstTheSameRunStartedAtCreation) {
  BookingHarness h;
  HoldLedger hold_ledger = h.Ledger(ledger::LedgerMode::kEnforced);
  HeldObject job = ReleasedJob();
  hold_ledger.Observe(job, "");
  hold_ledger.BookDue(*job.finished);
  EXPECT_NEAR(h.Grams("chosen"), 5.808, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual"), 23.232, 1e-9);
  EXPECT_NEAR(h.Value("carbonroute_ledger_energy_joules_total",
                      {{"controller", "hold"}, {"energy_source", "model"}}),
              209088, 1e-6);
  EXPECT_EQ(h.Value("carbonroute_ledger_decisions_total", {{"outcome", "moved"}}), 1);
  // Seen again at the next passes: booked once.
  hold_ledger.Observe(job, "");
  hold_ledger.BookDue(*job.finished + absl::Minutes(1));
  EXPECT_NEAR(h.Grams("chosen"), 5.808, 1e-9);
  EXPECT_EQ(hold_ledger.pending(), 0u);
}

// Kepler and DCGM measured the Job's Pods (hold --prometheus): 0.05 kWh of CPU (180,000 J) and
// 0.1 kWh of GPU (360,000 J) over the hours it ran. Chosen at 100 g: 15 g; at once, at 400 g:
// 60 g. Asked once its last minutes are recorded, for the Pods of Job "nightly" over its run;
// Prometheus down at first: asked again.
TEST(HoldLedger, AMeasuredRunIsPricedAtWhatKeplerAndDcgmMeasured) {
  BookingHarness h;
  HoldLedger hold_ledger = h.Ledger(ledger::LedgerMode::kEnforced);
  std::vector<std::tuple<std::string, std::string, absl::Time, absl::Time>> asked;
  bool down = true;
  hold_ledger.SetMeter([&](const std::string& namespace_name, const std::string& pods,
                           absl::Time from,
                           absl::Time to) -> absl::StatusOr<std::vector<ledger::PodEnergy>> {
    asked.emplace_back(namespace_name, pods, from, to);
    if (down) return absl::UnavailableError("prometheus: connection refused");
    return std::vector<ledger::PodEnergy>{{180'000, ledger::EnergySource::kKepler},
                                          {360'000, ledger::EnergySource::kDcgm}};
  });
  HeldObject job = ReleasedJob();
  hold_ledger.Observe(job, "");
  hold_ledger.BookDue(*job.finished + absl::Minutes(1));  // its last minutes not yet recorded
  EXPECT_TRUE(asked.empty());
  hold_ledger.BookDue(*job.finished + absl::Minutes(2));
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], std::make_tuple(std::string("batch"), ledger::RunPods(true, "nightly"),
                                      *job.started, *job.finished));
  EXPECT_TRUE(std::isnan(h.Grams("chosen")));  // not priced by the model meanwhile
  down = false;
  hold_ledger.BookDue(*job.finished + absl::Minutes(3));
  EXPECT_NEAR(h.Grams("chosen"), 15, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual"), 60, 1e-9);
  EXPECT_NEAR(h.Value("carbonroute_ledger_energy_joules_total", {{"energy_source", "dcgm"}}),
              360'000, 1e-9);
  EXPECT_TRUE(
      std::isnan(h.Value("carbonroute_ledger_energy_joules_total", {{"energy_source", "model"}})));
  EXPECT_EQ(h.Value("carbonroute_ledger_decisions_total", {{"outcome", "moved"}}), 1);
}

// Nothing measured its Pods (no Kepler on their Nodes): the model, as without a meter; and a
// Prometheus that stays down past the pricing grace: the model too.
TEST(HoldLedger, ARunNothingMeasuredIsPricedByTheModel) {
  for (const bool down : {false, true}) {
    BookingHarness h;
    HoldLedger hold_ledger = h.Ledger(ledger::LedgerMode::kEnforced);
    hold_ledger.SetMeter([down](const std::string&, const std::string&, absl::Time,
                                absl::Time) -> absl::StatusOr<std::vector<ledger::PodEnergy>> {
      if (down) return absl::UnavailableError("prometheus: connection refused");
      return std::vector<ledger::PodEnergy>{};
    });
    HeldObject job = ReleasedJob();
    hold_ledger.Observe(job, "");
    hold_ledger.BookDue(*job.finished + absl::Minutes(2));
    if (down) {
      EXPECT_EQ(hold_ledger.pending(), 1u);
      hold_ledger.BookDue(*job.finished + kPricingGrace);
    }
    EXPECT_EQ(hold_ledger.pending(), 0u) << down;
    EXPECT_NEAR(h.Grams("chosen"), 5.808, 1e-9) << down;
  }
}

// The hours it was held for turned out dirtier than those at its creation (a forecast can be
// wrong): a negative saving, booked as such.
TEST(HoldLedger, ALossIsBookedAsALoss) {
  BookingHarness h;
  h.readings.hourly["DE"] = [](int64_t hour) { return hour < 6 ? 100.0 : 300.0; };
  HoldLedger hold_ledger = h.Ledger(ledger::LedgerMode::kEnforced);
  const HeldObject job = ReleasedJob();
  hold_ledger.Observe(job, "");
  hold_ledger.BookDue(*job.finished);
  EXPECT_NEAR(h.Grams("chosen"), 0.05808 * 300, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual"), 0.05808 * 100, 1e-9);
  EXPECT_GT(h.Grams("chosen"), h.Grams("counterfactual"));
}

TEST(HoldLedger, ReadingsNotYetPolledAreAskedAgainThenTheRunIsSkippedNotZero) {
  BookingHarness h;
  HoldLedger hold_ledger = h.Ledger(ledger::LedgerMode::kEnforced);
  const HeldObject job = ReleasedJob();
  h.readings.missing = {8};  // the last hour of its run is not polled yet
  hold_ledger.Observe(job, "");
  hold_ledger.BookDue(*job.finished);
  EXPECT_TRUE(std::isnan(h.Grams("chosen")));
  EXPECT_EQ(hold_ledger.pending(), 1u);
  h.readings.missing.clear();  // the next poll brings it
  hold_ledger.BookDue(*job.finished + absl::Minutes(30));
  EXPECT_NEAR(h.Grams("chosen"), 5.808, 1e-9);

  // Another never gets its readings: skipped and counted once the grace has passed.
  HeldObject other = ReleasedJob();
  other.uid = "uid-2";
  h.readings.missing = {0};
  hold_ledger.Observe(other, "");
  hold_ledger.BookDue(*other.finished + kPricingGrace - absl::Seconds(1));
  EXPECT_EQ(hold_ledger.pending(), 1u);
  hold_ledger.BookDue(*other.finished + kPricingGrace);
  EXPECT_EQ(hold_ledger.pending(), 0u);
  EXPECT_EQ(h.Value("carbonroute_ledger_intervals_skipped_total",
                    {{"controller", "hold"}, {"reason", "unknown_intensity"}}),
            1);
  EXPECT_NEAR(h.Grams("chosen"), 5.808, 1e-9);  // nothing added for it
}

TEST(HoldLedger, WhatCannotBePricedIsSkippedWithItsReason) {
  BookingHarness h;
  HoldLedger hold_ledger = h.Ledger(ledger::LedgerMode::kEnforced);
  HeldObject unknown_requests = ReleasedJob();
  unknown_requests.requests.reset();
  HeldObject nowhere = ReleasedJob();
  nowhere.uid = "uid-2";
  nowhere.annotations.erase(kReleaseLocationAnnotation);
  HeldObject alone = nowhere;  // one location it could run in: priced there
  alone.uid = "uid-3";
  for (const HeldObject* object : {&unknown_requests, &nowhere}) hold_ledger.Observe(*object, "");
  hold_ledger.Observe(alone, "DE");
  hold_ledger.BookDue(*alone.finished);
  EXPECT_EQ(h.Value("carbonroute_ledger_intervals_skipped_total", {{"reason", "unknown_energy"}}),
            1);
  EXPECT_EQ(
      h.Value("carbonroute_ledger_intervals_skipped_total", {{"reason", "unknown_intensity"}}), 1);
  EXPECT_EQ(h.Value("carbonroute_ledger_decisions_total", {{"outcome", "unknown_energy"}}), 1);
  EXPECT_NEAR(h.Grams("chosen"), 5.808, 1e-9);
}

TEST(HoldLedger, OnlyRunsReleasedByCarbonrouteAndEndedWhileLeadingAreBooked) {
  BookingHarness h;
  HoldLedger hold_ledger = h.Ledger(ledger::LedgerMode::kEnforced);
  HeldObject never_held = ReleasedJob();
  never_held.annotations.clear();
  HeldObject running = ReleasedJob();
  running.uid = "uid-2";
  running.finished.reset();
  HeldObject before = ReleasedJob();  // a previous leader's to book
  before.uid = "uid-3";
  hold_ledger.LeadingSince(*before.finished + absl::Seconds(1));
  for (const HeldObject* object : {&never_held, &running, &before}) {
    hold_ledger.Observe(*object, "DE");
  }
  EXPECT_EQ(hold_ledger.pending(), 0u);
}

// Shadow mode: the Job ran at once (hours 0–2½ at 400 g); carbonroute's plan when it first saw
// it was hour 6 (100 g). Chosen is the plan, counterfactual what ran; booked only once the
// plan's hours have passed too.
TEST(HoldLedger, ShadowModeBooksThePlanAgainstWhatRan) {
  BookingHarness h;
  HoldLedger hold_ledger = h.Ledger(ledger::LedgerMode::kShadow);
  HeldObject job = ReleasedJob();
  job.annotations.clear();  // a dry run released nothing
  job.started.reset();
  job.finished.reset();
  hold_ledger.WouldStart(job, kCreation, kCreation + absl::Hours(6), "DE");
  job.started = kCreation + absl::Seconds(3);
  job.finished = *job.started + absl::Minutes(150);
  hold_ledger.Observe(job, "");
  hold_ledger.BookDue(*job.finished);
  EXPECT_TRUE(std::isnan(h.Grams("chosen", "shadow")));  // the plan's hours are to come
  EXPECT_EQ(h.readings.asked, 0);
  hold_ledger.BookDue(kCreation + absl::Hours(6) + absl::Minutes(150));
  EXPECT_NEAR(h.Grams("chosen", "shadow"), 5.808, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual", "shadow"), 23.232, 1e-9);
  EXPECT_EQ(
      h.Value("carbonroute_ledger_decisions_total", {{"mode", "shadow"}, {"outcome", "moved"}}), 1);

  // One that had started before its plan was seen (a restart) is not booked.
  HeldObject late = ReleasedJob();
  late.uid = "uid-2";
  late.annotations.clear();
  hold_ledger.WouldStart(late, *late.started + absl::Minutes(5), kCreation + absl::Hours(6), "DE");
  hold_ledger.Observe(late, "");
  EXPECT_EQ(hold_ledger.pending(), 0u);
}

}  // namespace
}  // namespace carbonroute::hold
