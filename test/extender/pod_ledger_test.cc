#include "extender/pod_ledger.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "extender/extender_service.h"
#include "extender/pod_watch.h"
#include "test/testing/counter_value.h"
#include "test/testing/fake_clock.h"

namespace carbonroute::extender {
namespace {

using testing::CounterValue;

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

// Nodes in Germany, France and Belgium at these intensities, gCO2eq/kWh.
std::shared_ptr<const placement::PlacementModel> Model(double de, double fr, double be,
                                                       bool marginal_be = false) {
  placement::PlacementFacts facts;
  facts.built_at = kT0;
  facts.nodes = {{"n-de", {"DE", "europe-west3"}},
                 {"n-fr", {"FR", "europe-west9"}},
                 {"n-be", {"BE", "europe-west1"}}};
  for (const auto& [location, grams] :
       std::initializer_list<std::pair<const char*, double>>{{"DE", de}, {"FR", fr}, {"BE", be}}) {
    placement::LocationCarbon carbon;
    carbon.grams_per_kwh = grams;
    if (marginal_be && std::string(location) == "BE")
      carbon.emissions_type = EmissionsType::kMarginal;
    facts.carbon[location] = carbon;
  }
  return std::make_shared<const placement::PlacementModel>(facts);
}

struct PodLedgerHarness {
  prometheus::Registry registry;
  ledger::Ledger ledger{registry};
  PodLedger pods{ledger, {.longest_interval = absl::Hours(2)}, kT0 - absl::Minutes(5)};

  double Grams(const std::string& basis) {
    return CounterValue(registry, "carbonroute_ledger_emissions_grams_total",
                        {{"controller", "extender"}, {"basis", basis}});
  }
  double Outcome(const std::string& outcome) {
    return CounterValue(registry, "carbonroute_ledger_decisions_total",
                        {{"controller", "extender"}, {"outcome", outcome}});
  }
  double Skipped(const std::string& reason) {
    return CounterValue(registry, "carbonroute_ledger_intervals_skipped_total",
                        {{"controller", "extender"}, {"reason", reason}});
  }
  static ScoredPod Scored(const std::string& uid, std::map<std::string, int> locations,
                          bool from_filter = true) {
    return {.uid = uid,
            .namespace_name = "shop",
            .name = uid,
            .scheduler_name = "carbonroute",
            .candidate_locations = std::move(locations),
            .from_filter = from_filter};
  }
  static WatchedPod Bound(const std::string& uid, const std::string& node) {
    return {.uid = uid,
            .namespace_name = "shop",
            .name = uid,
            .scheduler_name = "carbonroute",
            .node = node,
            .requests = kube::PodRequests{.cpu_cores = 4, .memory_bytes = 8e9},
            .scheduled_at = kT0};
  }
};

// One Pod of 4 cores and 8 GB (4 × 2.12 + 8 × 0.392 = 11.616 W: 0.011616 kWh an hour), offered
// a Node in each of Germany, France and Belgium, bound in France, over three hours:
//   hour 1  DE 380, FR  56, BE 150: chosen 0.650496 g, mean 195.333 → 2.268992 g
//   hour 2  DE 380, FR 500, BE 150: chosen 5.808 g,    mean 343.333 → 3.98816 g (a loss)
//   hour 3  DE 200, FR 100, BE 150: chosen 1.1616 g,   mean 150     → 1.7424 g (then deleted)
TEST(PodLedger, APodIsPricedWhereItRunsAgainstItsCandidatesMeanOverItsLife) {
  PodLedgerHarness h;
  h.pods.Scored(PodLedgerHarness::Scored("u1", {{"DE", 1}, {"FR", 1}, {"BE", 1}}), kT0);
  h.pods.Observed(PodLedgerHarness::Bound("u1", "n-fr"), Model(380, 56, 150).get(), kT0);
  EXPECT_EQ(h.pods.tracked(), 1u);
  EXPECT_DOUBLE_EQ(h.Outcome("moved"), 1);
  h.pods.Accrue(Model(380, 56, 150).get(), kT0 + absl::Hours(1));
  EXPECT_NEAR(h.Grams("chosen"), 0.650496, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual"), 0.011616 * (380 + 56 + 150) / 3, 1e-9);
  h.pods.Accrue(Model(380, 500, 150).get(), kT0 + absl::Hours(2));
  h.pods.Deleted("u1", Model(200, 100, 150).get(), kT0 + absl::Hours(3));
  EXPECT_EQ(h.pods.tracked(), 0u);
  EXPECT_NEAR(h.Grams("chosen"), 0.650496 + 5.808 + 1.1616, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual"), 2.268992 + 3.98816 + 1.7424, 1e-9);
  EXPECT_NEAR(CounterValue(h.registry, "carbonroute_ledger_energy_joules_total",
                           {{"controller", "extender"}, {"energy_source", "model"}}),
              3 * 11.616 * 3600, 1e-6);
  // Once deleted, nothing more.
  h.pods.Accrue(Model(380, 56, 150).get(), kT0 + absl::Hours(4));
  EXPECT_NEAR(h.Grams("chosen"), 7.620096, 1e-9);
}

// The same Pod measured by Kepler (and DCGM) from its second hour, through
// the emissions rules' records (ledger/metered_energy.h):
//   hour 1  no record yet: the model, chosen 0.650496 g, counterfactual 2.268992 g;
//   hour 2  Kepler 36,000 J (0.01 kWh) at FR 500 against a mean of 343.333:
//           5 g against 3.433333 g;
//   2 h 30  a window without its minutes: nothing booked, nothing skipped;
//   hour 3  Kepler 18,000 J + DCGM 90,000 J (0.03 kWh) at FR 100 against 150: 3 g against 4.5 g;
//   deleted at 3 h 10, its last minute (600 J) read at 3 h 11: 1/60 g against 0.025 g.
TEST(PodLedger, AMeasuredPodIsPricedAtItsMeasuredJoulesAndItsLastMinutesAfterItEnds) {
  PodLedgerHarness h;
  h.pods.Scored(PodLedgerHarness::Scored("u1", {{"DE", 1}, {"FR", 1}, {"BE", 1}}), kT0);
  h.pods.Observed(PodLedgerHarness::Bound("u1", "n-fr"), Model(380, 56, 150).get(), kT0);
  const ledger::MeteredPods none;
  h.pods.Accrue(Model(380, 56, 150).get(), kT0 + absl::Hours(1), &none);
  EXPECT_NEAR(h.Grams("chosen"), 0.650496, 1e-9);
  const ledger::MeteredPods hour2 = {
      .pods = {{{"shop", "u1"}, {{36'000, ledger::EnergySource::kKepler}}}}, .nodes = {"n-fr"}};
  h.pods.Accrue(Model(380, 500, 150).get(), kT0 + absl::Hours(2), &hour2);
  EXPECT_NEAR(h.Grams("chosen"), 0.650496 + 5, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual"), 2.268992 + 0.01 * (380 + 500 + 150) / 3, 1e-9);
  h.pods.Accrue(Model(380, 500, 150).get(), kT0 + absl::Minutes(150), &none);
  h.pods.Accrue(Model(380, 500, 150).get(), kT0 + absl::Minutes(160), nullptr);  // unread
  EXPECT_NEAR(h.Grams("chosen"), 5.650496, 1e-9);
  EXPECT_TRUE(std::isnan(h.Skipped("unknown_energy")));
  const ledger::MeteredPods hour3 = {
      .pods = {{{"shop", "u1"},
                {{18'000, ledger::EnergySource::kKepler}, {90'000, ledger::EnergySource::kDcgm}}}},
      .nodes = {"n-fr"}};
  h.pods.Accrue(Model(200, 100, 150).get(), kT0 + absl::Hours(3), &hour3);
  EXPECT_NEAR(h.Grams("chosen"), 5.650496 + 3, 1e-9);
  h.pods.Deleted("u1", Model(200, 100, 150).get(), kT0 + absl::Minutes(190));
  EXPECT_EQ(h.pods.tracked(), 1u);  // its last minutes are still to be read
  const ledger::MeteredPods last = {
      .pods = {{{"shop", "u1"}, {{600, ledger::EnergySource::kKepler}}}}, .nodes = {"n-fr"}};
  h.pods.Accrue(Model(200, 100, 150).get(), kT0 + absl::Minutes(191), &last);
  EXPECT_EQ(h.pods.tracked(), 0u);
  EXPECT_NEAR(h.Grams("chosen"), 8.650496 + 600 / 3.6e6 * 100, 1e-9);
  EXPECT_NEAR(h.Grams("counterfactual"),
              2.268992 + 0.01 * 1030 / 3 + 0.03 * 150 + 600 / 3.6e6 * 150, 1e-9);
  EXPECT_NEAR(CounterValue(h.registry, "carbonroute_ledger_energy_joules_total",
                           {{"controller", "extender"}, {"energy_source", "kepler"}}),
              36'000 + 18'000 + 600, 1e-9);
  EXPECT_NEAR(CounterValue(h.registry, "carbonroute_ledger_energy_joules_total",
                           {{"controller", "extender"}, {"energy_source", "dcgm"}}),
              90'000, 1e-9);
  EXPECT_NEAR(CounterValue(h.registry, "carbonroute_ledger_energy_joules_total",
                           {{"controller", "extender"}, {"energy_source", "model"}}),
              11.616 * 3600, 1e-6);
}

// A meter silent on a measured Pod for longer than an interval may be (Kepler
// left its Node): one unknown_energy skip for the silence, then the model.
TEST(PodLedger, WhenTheMeterFallsSilentOnAPodTheModelTakesOverAfterOneSkip) {
  PodLedgerHarness h;  // longest interval 2 h
  h.pods.Scored(PodLedgerHarness::Scored("u1", {{"FR", 1}}), kT0);
  h.pods.Observed(PodLedgerHarness::Bound("u1", "n-fr"), Model(380, 56, 150).get(), kT0);
  const ledger::MeteredPods measured = {
      .pods = {{{"shop", "u1"}, {{3'600, ledger::EnergySource::kKepler}}}}, .nodes = {"n-fr"}};
  const ledger::MeteredPods none;
  h.pods.Accrue(Model(380, 100, 150).get(), kT0 + absl::Hours(1), &measured);
  h.pods.Accrue(Model(380, 100, 150).get(), kT0 + absl::Hours(2), &none);
  h.pods.Accrue(Model(380, 100, 150).get(), kT0 + absl::Hours(3), &none);  // 2 h silent
  EXPECT_NEAR(h.Grams("chosen"), 0.1, 1e-9);
  EXPECT_TRUE(std::isnan(h.Skipped("unknown_energy")));
  h.pods.Accrue(Model(380, 100, 150).get(), kT0 + absl::Hours(4), &none);  // 3 h: given up
  EXPECT_DOUBLE_EQ(h.Skipped("unknown_energy"), 1);
  h.pods.Accrue(Model(380, 100, 150).get(), kT0 + absl::Hours(5), &none);  // the model
  EXPECT_NEAR(h.Grams("chosen"), 0.1 + 0.011616 * 100, 1e-9);
  // Its Node metered again (another Pod measured there): it stays with the model, once given up.
  const ledger::MeteredPods other = {
      .pods = {{{"shop", "other"}, {{60, ledger::EnergySource::kKepler}}}}, .nodes = {"n-fr"}};
  h.pods.Accrue(Model(380, 100, 150).get(), kT0 + absl::Hours(6), &other);
  h.pods.Accrue(Model(380, 100, 150).get(), kT0 + absl::Hours(7), &none);
  EXPECT_NEAR(h.Grams("chosen"), 0.1 + 3 * 0.011616 * 100, 1e-9);
  EXPECT_DOUBLE_EQ(h.Skipped("unknown_energy"), 1);
}

// A Pod new on a Node the meter measures waits for its minutes (no model
// meanwhile); one on a Node without a meter is modelled.
TEST(PodLedger, APodOnAMeteredNodeWaitsForItsMinutesAndOneElsewhereIsModelled) {
  PodLedgerHarness h;
  const ledger::MeteredPods other = {
      .pods = {{{"shop", "other"}, {{60, ledger::EnergySource::kKepler}}}}, .nodes = {"n-fr"}};
  h.pods.Accrue(Model(380, 100, 150).get(), kT0, &other);  // n-fr is metered
  h.pods.Scored(PodLedgerHarness::Scored("new", {{"FR", 1}}), kT0);
  h.pods.Observed(PodLedgerHarness::Bound("new", "n-fr"), Model(380, 100, 150).get(), kT0);
  h.pods.Scored(PodLedgerHarness::Scored("unmetered", {{"DE", 1}}), kT0);
  h.pods.Observed(PodLedgerHarness::Bound("unmetered", "n-de"), Model(380, 100, 150).get(), kT0);
  const ledger::MeteredPods none;
  h.pods.Accrue(Model(380, 100, 150).get(), kT0 + absl::Hours(1), &none);
  // Only the Pod in Germany, by the model: 0.011616 kWh × 380.
  EXPECT_NEAR(h.Grams("chosen"), 0.011616 * 380, 1e-9);
  const ledger::MeteredPods arrived = {
      .pods = {{{"shop", "new"}, {{7'200, ledger::EnergySource::kKepler}}}}, .nodes = {"n-fr"}};
  h.pods.Accrue(Model(380, 100, 150).get(), kT0 + absl::Minutes(61), &arrived);
  // 7,200 J at 100 g/kWh, and the German Pod's minute more.
  EXPECT_NEAR(h.Grams("chosen"), 0.011616 * 380 * 61 / 60 + 0.2, 1e-9);
  EXPECT_TRUE(std::isnan(h.Skipped("unknown_energy")));
}

TEST(PodLedger, APodNeverScoredIsCountedOnceAndOnlyForItsSchedulers) {
  PodLedgerHarness h;
  h.pods.Scored(PodLedgerHarness::Scored("scored", {{"DE", 2}}), kT0);  // "carbonroute" seen
  h.pods.Observed(PodLedgerHarness::Bound("scored", "n-de"), Model(380, 56, 150).get(), kT0);
  EXPECT_DOUBLE_EQ(h.Outcome("kept"), 1);  // one location offered: no choice to make
  WatchedPod unscored = PodLedgerHarness::Bound("new", "n-fr");
  h.pods.Observed(unscored, nullptr, kT0);
  h.pods.Observed(unscored, nullptr, kT0 + absl::Minutes(1));  // a later change: not again
  EXPECT_DOUBLE_EQ(h.Outcome("not_scored"), 1);
  WatchedPod old = PodLedgerHarness::Bound("old", "n-fr");
  old.scheduled_at = kT0 - absl::Hours(1);  // before this process started
  h.pods.Observed(old, nullptr, kT0);
  EXPECT_DOUBLE_EQ(h.Outcome("restart"), 1);
  WatchedPod other = PodLedgerHarness::Bound("other", "n-fr");
  other.scheduler_name = "default-scheduler";  // carbonroute scores nothing for it
  h.pods.Observed(other, nullptr, kT0);
  EXPECT_EQ(h.pods.tracked(), 1u);
  EXPECT_TRUE(std::isnan(CounterValue(h.registry, "carbonroute_ledger_decisions_total",
                                      {{"controller", "extender"}, {"namespace", "other"}})));
}

TEST(PodLedger, WhatCannotBePricedIsSkippedNeverZero) {
  PodLedgerHarness h;
  h.pods.Scored(PodLedgerHarness::Scored("a", {{"FR", 1}, {"XX", 1}}), kT0);  // XX: no reading
  h.pods.Observed(PodLedgerHarness::Bound("a", "n-fr"), nullptr, kT0);
  h.pods.Accrue(Model(380, 56, 150).get(), kT0 + absl::Minutes(1));
  EXPECT_DOUBLE_EQ(h.Skipped("unknown_intensity"), 1);
  h.pods.Scored(PodLedgerHarness::Scored("b", {{"FR", 1}}), kT0);
  WatchedPod no_requests = PodLedgerHarness::Bound("b", "n-fr");
  no_requests.requests.reset();
  h.pods.Observed(no_requests, nullptr, kT0);
  h.pods.Scored(PodLedgerHarness::Scored("c", {{"FR", 1}, {"BE", 1}}), kT0);
  h.pods.Observed(PodLedgerHarness::Bound("c", "n-fr"), nullptr, kT0);
  h.pods.Accrue(Model(380, 56, 150, /*marginal_be=*/true).get(), kT0 + absl::Minutes(2));
  EXPECT_DOUBLE_EQ(h.Skipped("unknown_energy"), 1);
  EXPECT_DOUBLE_EQ(h.Skipped("mixed_emissions_types"), 1);
  h.pods.Accrue(Model(380, 56, 150).get(), kT0 + absl::Hours(5));  // 5 h > 2 h: not vouched for
  EXPECT_DOUBLE_EQ(h.Skipped("gap"), 3);
  EXPECT_TRUE(std::isnan(h.Grams("chosen")));
}

TEST(PodLedger, ScoredPodsAreBoundedAndAFilterOutranksAPrioritizeList) {
  prometheus::Registry registry;
  ledger::Ledger ledger{registry};
  PodLedger pods{ledger, {.max_scored = 2, .scored_ttl = absl::Minutes(10)}, kT0};
  pods.Scored(PodLedgerHarness::Scored("a", {{"FR", 1}}), kT0);
  // The /prioritize list of the same Pod does not replace what passed its /filter.
  pods.Scored(PodLedgerHarness::Scored("a", {{"DE", 5}}, /*from_filter=*/false), kT0);
  pods.Scored(PodLedgerHarness::Scored("b", {{"FR", 1}}), kT0);
  pods.Scored(PodLedgerHarness::Scored("c", {{"FR", 1}}), kT0);
  EXPECT_LE(pods.scored(), 2u);
  pods.Accrue(nullptr, kT0 + absl::Minutes(11));  // past the TTL: every one expired
  EXPECT_EQ(pods.scored(), 0u);
  pods.Scored(PodLedgerHarness::Scored("d", {{"FR", 1}}), kT0 + absl::Minutes(11));
  pods.Scored(PodLedgerHarness::Scored("d", {{"DE", 5}}, false), kT0 + absl::Minutes(11));
  pods.Observed(PodLedgerHarness::Bound("d", "n-fr"), Model(380, 56, 150).get(),
                kT0 + absl::Minutes(11));
  pods.Accrue(Model(380, 56, 150).get(), kT0 + absl::Minutes(12));
  // Priced against France (the filter's), not Germany (the prioritize list's): no saving.
  EXPECT_DOUBLE_EQ(
      CounterValue(registry, "carbonroute_ledger_emissions_grams_total", {{"basis", "chosen"}}),
      CounterValue(registry, "carbonroute_ledger_emissions_grams_total",
                   {{"basis", "counterfactual"}}));
}

TEST(PodLedger, APodDeletedWhileTheWatchWasDownIsBookedAtTheNextList) {
  PodLedgerHarness h;
  h.pods.Scored(PodLedgerHarness::Scored("gone", {{"DE", 1}, {"FR", 1}}), kT0);
  h.pods.Observed(PodLedgerHarness::Bound("gone", "n-fr"), nullptr, kT0);
  h.pods.Retain({"another"}, Model(380, 56, 150).get(), kT0 + absl::Hours(1));
  EXPECT_EQ(h.pods.tracked(), 0u);
  EXPECT_NEAR(h.Grams("chosen"), 0.011616 * 56, 1e-9);
}

// Scored from the HTTP threads, Observed from the watch's, Accrue from the refresh's, at once
// (ThreadSanitizer runs this: scripts/check-sanitizers thread).
TEST(PodLedger, IsSafeFromTheServersTheWatchsAndTheRefreshsThreads) {
  PodLedgerHarness h;
  const auto model = Model(380, 56, 150);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&h, &model, t] {
      for (int i = 0; i < 200; ++i) {
        const std::string uid = absl::StrCat("u", t, "-", i);
        h.pods.Scored(PodLedgerHarness::Scored(uid, {{"DE", 1}, {"FR", 1}}), kT0);
        h.pods.Observed(PodLedgerHarness::Bound(uid, "n-fr"), model.get(), kT0);
      }
    });
  }
  threads.emplace_back([&h, &model] {  // within the scored Pods' 10 minutes
    for (int second = 1; second <= 500; ++second) {
      h.pods.Accrue(model.get(), kT0 + absl::Seconds(second));
    }
  });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(h.pods.tracked(), 600u);
  EXPECT_DOUBLE_EQ(h.Outcome("moved"), 600);
}

TEST(ReadWatchedPod, ReadsTheBindingTheRequestsAndTheEnd) {
  const nlohmann::json pod = nlohmann::json::parse(R"({
    "metadata": {"uid": "u1", "namespace": "shop", "name": "web-1"},
    "spec": {"nodeName": "n-fr", "containers": [{"name": "c",
             "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}]},
    "status": {"phase": "Succeeded", "conditions": [
      {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2027-01-15T08:00:00Z"}]}})");
  kube::JsonDocument document;
  absl::StatusOr<kube::JsonField> root = document.Parse(pod.dump(), "Pod");
  ASSERT_TRUE(root.ok());
  absl::StatusOr<WatchedPod> read = ReadWatchedPod(*root);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->node, "n-fr");
  EXPECT_EQ(read->scheduler_name, "default-scheduler");  // as the API defaults it
  EXPECT_TRUE(read->finished);
  ASSERT_TRUE(read->requests.has_value());
  EXPECT_DOUBLE_EQ(read->requests->cpu_cores, 0.5);
  EXPECT_EQ(read->scheduled_at,
            absl::FromCivil(absl::CivilSecond(2027, 1, 15, 8, 0, 0), absl::UTCTimeZone()));
  kube::JsonDocument nameless;
  EXPECT_FALSE(ReadWatchedPod(*nameless.Parse(R"({"metadata":{}})", "Pod")).ok());
}

// /filter records the Nodes that passed it: here the Pod's 20 ms limit from n-de leaves out
// Belgium (30 ms away), so its mean is over Germany and France.
TEST(ExtenderServiceLedger, AFilterRecordsThePassingNodesLocations) {
  placement::PlacementFacts facts;
  facts.built_at = kT0;
  facts.nodes = {{"n-de", {"DE", "europe-west3"}},
                 {"n-fr", {"FR", "europe-west9"}},
                 {"n-be", {"BE", "europe-west1"}}};
  for (const auto& [location, grams] : std::initializer_list<std::pair<const char*, double>>{
           {"DE", 380.0}, {"FR", 56.0}, {"BE", 150.0}}) {
    facts.carbon[location].grams_per_kwh = grams;
  }
  facts.rtt["n-de"]["n-de"] = {.rtt = absl::Milliseconds(1), .observed_at = kT0};
  facts.rtt["n-de"]["n-fr"] = {.rtt = absl::Milliseconds(10), .observed_at = kT0};
  facts.rtt["n-de"]["n-be"] = {.rtt = absl::Milliseconds(30), .observed_at = kT0};
  ModelStore models;
  models.Set(std::make_shared<const placement::PlacementModel>(facts));
  testing::FakeClock clock{kT0};
  auto registry = std::make_shared<prometheus::Registry>();
  ExtenderService service(models, placement::ScoringOptions{}, clock, *registry);
  ledger::Ledger ledger{*registry};
  PodLedger pods{ledger, {.longest_interval = absl::Hours(2)}, kT0};
  service.SetPodLedger(&pods);
  net::HttpServerRequest request;
  request.method = "POST";
  request.body = R"({"Pod":{"metadata":{"uid":"u9","namespace":"shop","name":"web",
      "labels":{"delay_n-de":"20"}},"spec":{"schedulerName":"carbonroute"}},
      "NodeNames":["n-de","n-fr","n-be"]})";
  ASSERT_EQ(service.Filter(request).status, 200);
  EXPECT_EQ(pods.scored(), 1u);
  pods.Observed({.uid = "u9",
                 .namespace_name = "shop",
                 .name = "web",
                 .scheduler_name = "carbonroute",
                 .node = "n-fr",
                 .requests = kube::PodRequests{.cpu_cores = 4, .memory_bytes = 8e9}},
                models.Get().get(), kT0);
  pods.Accrue(models.Get().get(), kT0 + absl::Hours(1));
  EXPECT_NEAR(CounterValue(*registry, "carbonroute_ledger_emissions_grams_total",
                           {{"basis", "counterfactual"}}),
              0.011616 * (380 + 56) / 2, 1e-9);
}

}  // namespace
}  // namespace carbonroute::extender
