// The planning part of the routing controller's resync: PlanRoutes
// (routing/route_plan.h) for P policies over L localities each, from one
// placement model (the extender's scoring for the carbon values and each
// origin's RTTs, the simulator's min-cost flow, Istio's rows and their check);
// no API call (a resync's GETs and PATCHes are the API server's time, not
// carbonroute's). Real time per iteration, the process's CPU time beside it
// (one thread: the two agree). The figure: 200 policies × 50
// localities; the grid shows how it grows with each.
//
//   ./build/bin/routing_benchmark
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "placement/placement_model.h"
#include "routing/route_plan.h"

namespace {

using carbonroute::placement::PlacementFacts;
using carbonroute::placement::PlacementModel;
using carbonroute::routing::PlanRoutes;
using carbonroute::routing::RoutingPolicy;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

// L regions, each its own grid location with its own intensity, a full static RTT matrix
// (5 to 95 ms), as the shipped inter-region matrix gives it.
std::unique_ptr<PlacementModel> Model(int localities) {
  PlacementFacts facts;
  facts.built_at = kNow;
  for (int i = 0; i < localities; ++i) {
    const std::string region = absl::StrCat("region-", i);
    const std::string location = absl::StrCat("ZONE-", i);
    facts.region_locations[region] = location;
    auto& carbon = facts.carbon[location];
    carbon.grams_per_kwh = 50 + (i * 137) % 600;
    carbon.valid_to = kNow + absl::Minutes(30);
    carbon.observed_at = kNow;
    for (int j = 0; j < localities; ++j) {
      if (i == j) continue;
      facts.rtt[region][absl::StrCat("region-", j)] = {
          .rtt = absl::Milliseconds(5 + (i * 31 + j * 17) % 90),
          .method = carbonroute::RttMethod::kDeclared,
          .observed_at = kNow};
    }
  }
  return std::make_unique<PlacementModel>(facts);
}

RoutingPolicy Policy() {
  RoutingPolicy policy;
  policy.name = "web";
  policy.namespace_name = "shop";
  policy.targets.push_back({.name = "web"});
  policy.max_rtt = absl::Milliseconds(50);
  policy.carbon_tolerance = 10;
  policy.headroom_percent = 20;
  return policy;
}

void BM_PlanRoutesOfPolicies(benchmark::State& state) {
  const int policies = static_cast<int>(state.range(0));
  const int localities = static_cast<int>(state.range(1));
  const std::unique_ptr<PlacementModel> model = Model(localities);
  const RoutingPolicy policy = Policy();
  std::map<std::string, double> endpoints;
  for (int i = 0; i < localities; ++i) endpoints[absl::StrCat("region-", i, "/*")] = 1 + i % 4;
  for (auto _ : state) {
    for (int p = 0; p < policies; ++p) {
      auto plan = PlanRoutes(policy, endpoints, *model, kNow);
      if (!plan.ok() || !plan->decided) state.SkipWithError("no plan");
      benchmark::DoNotOptimize(plan);
    }
  }
  state.counters["policies"] = policies;
  state.counters["localities"] = localities;
  state.counters["per_policy_ms"] = benchmark::Counter(
      static_cast<double>(policies) * 1e-3,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_PlanRoutesOfPolicies)
    ->ArgsProduct({{1, 50, 200}, {10, 25, 50}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
