// The temporal grid of Sukprasert et al. (EuroSys 2024) on the shipped year:
// 7 job lengths × 5 slacks × 123 zones × every arrival, both
// interruptibility modes, now and the exact oracle (simulator/temporal_simulation.h).
// Goal: under 30 s on the 2-core reference machine.
//
//   ./build/bin/temporal_benchmark
#include <benchmark/benchmark.h>

#include <string>

#include "simulator/temporal_simulation.h"

namespace {

void BM_TemporalGrid(benchmark::State& state) {
  absl::StatusOr<carbonroute::IntensityTrace> trace =
      carbonroute::IntensityTrace::Load(CARBONROUTE_TRACE_CSV);
  if (!trace.ok()) {
    state.SkipWithError("cannot read the trace");
    return;
  }
  carbonroute::simulator::TemporalOptions options;  // the study's grid
  options.groups = {"Global"};
  options.threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    auto rows = carbonroute::simulator::SimulateTemporal(*trace, {}, options);
    if (!rows.ok()) state.SkipWithError("simulation failed");
    benchmark::DoNotOptimize(rows);
  }
  state.counters["jobs"] = static_cast<double>(trace->zones().size()) * 7 * 5 * 2 *
                           static_cast<double>(trace->hours());
}
BENCHMARK(BM_TemporalGrid)->Arg(1)->Arg(2)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
