// The extender's savings ledger's cost (extender/pod_ledger.h), the issue's
// two figures:
//   - CPU per 1,000 bound Pods: each scored by /filter over 5,000 Nodes in
//     20 grid locations (the candidates kept as counts per location), bound
//     (the watch's event), accrued 60 times (an hour of 1-minute refreshes,
//     each pricing every tracked Pod), then deleted;
//   - memory per 10,000 tracked Pods: the heap bytes (mallinfo2's
//     uordblks) 10,000 bound Pods hold, each offered Nodes in 20 locations.
// And the CPU of the same hour with every Pod measured (Kepler's joules
// through the emissions rules, ledger/metered_energy.h).
// The scoring itself is not in it (extender_benchmark measures /filter).
//
//   ./build-bench/bin/pod_ledger_benchmark
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <prometheus/registry.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "extender/pod_ledger.h"
#include "ledger/ledger.h"
#include "ledger/metered_energy.h"
#include "placement/placement_model.h"

namespace {

using carbonroute::extender::PodLedger;
using carbonroute::extender::ScoredPod;
using carbonroute::extender::WatchedPod;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);
constexpr int kLocations = 20;
constexpr int kNodes = 5'000;

std::shared_ptr<const carbonroute::placement::PlacementModel> Model() {
  carbonroute::placement::PlacementFacts facts;
  facts.built_at = kNow;
  for (int i = 0; i < kLocations; ++i) {
    facts.carbon[absl::StrCat("ZONE-", i)].grams_per_kwh = 50 + (i * 137) % 600;
  }
  for (int n = 0; n < kNodes; ++n) {
    facts.nodes[absl::StrCat("node-", n)] = {absl::StrCat("ZONE-", n % kLocations),
                                             absl::StrCat("region-", n % kLocations)};
  }
  return std::make_shared<const carbonroute::placement::PlacementModel>(facts);
}

ScoredPod Scored(int i) {
  ScoredPod pod{.uid = absl::StrCat("uid-", i),
                .namespace_name = "shop",
                .name = absl::StrCat("web-", i),
                .scheduler_name = "carbonroute",
                .from_filter = true};
  for (int l = 0; l < kLocations; ++l) pod.candidate_locations[absl::StrCat("ZONE-", l)] = 250;
  return pod;
}

WatchedPod Bound(int i) {
  return {.uid = absl::StrCat("uid-", i),
          .namespace_name = "shop",
          .name = absl::StrCat("web-", i),
          .scheduler_name = "carbonroute",
          .node = absl::StrCat("node-", i % kNodes),
          .requests = carbonroute::kube::PodRequests{.cpu_cores = 1, .memory_bytes = 2e9}};
}

// 1,000 Pods scored, bound, accrued every minute for an hour (each accrual
// given the window's measured figures, turned from `answer`, when it is
// given), then deleted.
void AnHourOfAThousandPods(const carbonroute::placement::PlacementModel& model,
                           const std::vector<carbonroute::ledger::MeteredSeries>* answer) {
  prometheus::Registry registry;
  carbonroute::ledger::Ledger ledger(registry);
  PodLedger pods(ledger, {}, kNow);
  for (int i = 0; i < 1'000; ++i) {
    pods.Scored(Scored(i), kNow);
    pods.Observed(Bound(i), &model, kNow);
  }
  for (int minute = 1; minute <= 60; ++minute) {
    if (answer == nullptr) {
      pods.Accrue(&model, kNow + absl::Minutes(minute));
      continue;
    }
    const carbonroute::ledger::MeteredPods metered =
        carbonroute::ledger::CombineMeteredEnergy(*answer);
    pods.Accrue(&model, kNow + absl::Minutes(minute), &metered);
  }
  for (int i = 0; i < 1'000; ++i) {
    pods.Deleted(absl::StrCat("uid-", i), &model, kNow + absl::Minutes(61));
  }
  benchmark::DoNotOptimize(pods.tracked());
}

void BM_ThousandPodsOverAnHour(benchmark::State& state) {
  const auto model = Model();
  for (auto _ : state) AnHourOfAThousandPods(*model, nullptr);
  state.SetLabel("1,000 Pods: scored, bound, 60 accruals, deleted");
}
BENCHMARK(BM_ThousandPodsOverAnHour)->Unit(benchmark::kMillisecond);

// The same hour with every Pod measured by Kepler: each accrual also turns a
// query's 1,000 answer series into the window's figures (what serve does with
// the emissions rules' minutes) and books each Pod from them.
void BM_ThousandMeteredPodsOverAnHour(benchmark::State& state) {
  const auto model = Model();
  std::vector<carbonroute::ledger::MeteredSeries> answer;
  for (int i = 0; i < 1'000; ++i) {
    answer.push_back(
        {"shop", absl::StrCat("web-", i), absl::StrCat("node-", i % kNodes), "kepler", "cpu", 600});
  }
  for (auto _ : state) AnHourOfAThousandPods(*model, &answer);
  state.SetLabel("1,000 Pods measured: scored, bound, 60 metered accruals, deleted");
}
BENCHMARK(BM_ThousandMeteredPodsOverAnHour)->Unit(benchmark::kMillisecond);

void BM_TenThousandTrackedPodsMemory(benchmark::State& state) {
  const auto model = Model();
  for (auto _ : state) {
    prometheus::Registry registry;
    carbonroute::ledger::Ledger ledger(registry);
    const std::size_t before = mallinfo2().uordblks;
    auto pods =
        std::make_unique<PodLedger>(ledger, carbonroute::extender::PodLedgerOptions{}, kNow);
    for (int i = 0; i < 10'000; ++i) {
      pods->Scored(Scored(i), kNow);
      pods->Observed(Bound(i), model.get(), kNow);
    }
    const std::size_t after = mallinfo2().uordblks;
    state.counters["bytes_per_pod"] = static_cast<double>(after - before) / 10'000;
    state.counters["MiB"] = static_cast<double>(after - before) / (1 << 20);
    benchmark::DoNotOptimize(pods->tracked());
  }
}
BENCHMARK(BM_TenThousandTrackedPodsMemory)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
