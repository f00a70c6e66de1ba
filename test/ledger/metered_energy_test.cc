#include "ledger/metered_energy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

namespace carbonroute::ledger {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;

auto Energy(double joules, EnergySource source) {
  return ::testing::AllOf(Field(&PodEnergy::joules, joules), Field(&PodEnergy::source, source));
}

TEST(MeteredEnergyQuery, SumsTheRulesMinutesOfTheWindowLessAMillisecond) {
  EXPECT_EQ(MeteredEnergyQuery(absl::Seconds(60)),
            "sum by (namespace, pod, node, meter, component) (sum_over_time("
            "node_namespace_pod_container:carbonroute_workload_energy_joules:increase1m"
            "[59999ms]))");
}

// Kepler 0.7/0.8's total alone (it has the GPU in it); Kepler ≥ 0.10's CPU
// with DCGM's GPU, or with its own GPU when DCGM has none; never a GPU twice.
TEST(CombineMeteredEnergy, OneFigurePerSourceAndNeverAGpuTwice) {
  const MeteredPods pods = CombineMeteredEnergy({
      {"shop", "old-kepler", "n1", "kepler", "total", 100},
      {"shop", "old-kepler", "n1", "dcgm", "gpu", 900},  // in Kepler's total already
      {"ml", "train", "n1", "kepler", "cpu", 50},
      {"ml", "train", "n1", "kepler", "gpu", 700},  // the same GPU DCGM measured
      {"ml", "train", "n1", "dcgm", "gpu", 800},
      {"ml", "train", "n1", "dcgm", "gpu", 200},  // a second GPU (or container): added
      {"ml", "infer", "n1", "kepler", "cpu", 20},
      {"ml", "infer", "n1", "kepler", "gpu", 300},
      {"ml", "gpu-only", "n2", "dcgm", "gpu", 400},
      {"shop", "reset", "n1", "kepler", "cpu", -5},
      {"shop", "nan", "n1", "kepler", "cpu", std::numeric_limits<double>::quiet_NaN()},
      {"shop", "", "n1", "kepler", "cpu", 10},
      {"shop", "other", "n1", "rapl", "cpu", 10},
  });
  EXPECT_THAT(pods.pods.at({"shop", "old-kepler"}),
              ElementsAre(Energy(100, EnergySource::kKepler)));
  EXPECT_THAT(pods.pods.at({"ml", "train"}),
              ElementsAre(Energy(50, EnergySource::kKepler), Energy(1000, EnergySource::kDcgm)));
  EXPECT_THAT(pods.pods.at({"ml", "infer"}), ElementsAre(Energy(320, EnergySource::kKepler)));
  EXPECT_THAT(pods.pods.at({"ml", "gpu-only"}), ElementsAre(Energy(400, EnergySource::kDcgm)));
  EXPECT_EQ(pods.pods.size(), 4u);  // a reset, a NaN, no Pod name and an unknown meter: nothing
  EXPECT_THAT(pods.nodes, ElementsAre("n1", "n2"));
}

// The Job controller names a Job's Pods <job>-<5 characters>, and an indexed Job's
// <job>-<index>-<5 characters>; a '.' in a name is a literal.
TEST(MeteredRunQuery, SumsTheRunsPodsOverItsRun) {
  EXPECT_EQ(RunPods(true, "nightly.v2"),
            R"(nightly\\.v2-[a-z0-9]{5}|nightly\\.v2-[0-9]+-[a-z0-9]{5})");
  EXPECT_EQ(RunPods(false, "train-0"), "train-0");
  EXPECT_EQ(MeteredRunQuery("batch", RunPods(false, "train-0"), absl::Hours(1)),
            "sum by (namespace, pod, node, meter, component) (sum_over_time("
            "node_namespace_pod_container:carbonroute_workload_energy_joules:increase1m"
            R"x({namespace="batch",pod=~"train-0"}[3599999ms])))x");
  MeteredPods pods;
  pods.pods[{"batch", "a"}] = {{10, EnergySource::kKepler}, {100, EnergySource::kDcgm}};
  pods.pods[{"batch", "b"}] = {{5, EnergySource::kKepler}};
  EXPECT_THAT(TotalBySource(pods),
              ElementsAre(Energy(15, EnergySource::kKepler), Energy(100, EnergySource::kDcgm)));
  EXPECT_TRUE(TotalBySource({}).empty());
}

TEST(MeterWindow, EachWindowStartsWhereTheLastReadOneEndedAndALongOneRestarts) {
  const absl::Time t0 = absl::FromUnixSeconds(1'800'000'000);
  MeterWindow window(t0, absl::Minutes(10));
  EXPECT_EQ(window.Next(t0), std::nullopt);  // empty
  EXPECT_EQ(window.Next(t0 + absl::Minutes(1)), absl::Minutes(1));
  // Not read (Prometheus did not answer): the next window still starts at t0.
  EXPECT_EQ(window.Next(t0 + absl::Minutes(2)), absl::Minutes(2));
  window.Read(t0 + absl::Minutes(2));
  EXPECT_EQ(window.Next(t0 + absl::Minutes(3)), absl::Minutes(1));
  // Unread for 11 minutes: longer than a window may be; restarted.
  EXPECT_EQ(window.Next(t0 + absl::Minutes(13)), std::nullopt);
  EXPECT_EQ(window.Next(t0 + absl::Minutes(14)), absl::Minutes(1));
}

}  // namespace
}  // namespace carbonroute::ledger
