// The temporal grid of Sukprasert et al. (EuroSys 2024) on the shipped year:
// 7 job lengths × 5 slacks × 123 zones × every arrival, both
// interruptibility modes, now and the exact oracle (simulator/temporal_simulation.h).
// Goal: under 30 s on the 2-core reference machine.
//
//   ./build/bin/temporal_benchmark
//   ./build/bin/temporal_benchmark --zones=DE,FR   the oracle's mean per cell of those
//       zones, one thread, as bench/simulate/temporal_baseline.py prints it (for
//       bench/simulate/temporal_run), and the time it took on stderr
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "simulator/temporal_shift.h"
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
  state.counters["jobs"] =
      static_cast<double>(trace->zones().size()) * 7 * 5 * 2 * static_cast<double>(trace->hours());
}
BENCHMARK(BM_TemporalGrid)->Arg(1)->Arg(2)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

// --zones=A,B: the oracle's mean over arrivals for every cell of the grid.
int PrintOracleMeans(const std::string& zones) {
  absl::StatusOr<carbonroute::IntensityTrace> trace =
      carbonroute::IntensityTrace::Load(CARBONROUTE_TRACE_CSV);
  if (!trace.ok()) return 1;
  const carbonroute::simulator::TemporalOptions grid;
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& zone : std::vector<std::string>(absl::StrSplit(zones, ','))) {
    const std::optional<std::size_t> z = trace->ZoneIndex(zone);
    if (!z) {
      std::fprintf(stderr, "unknown zone %s\n", zone.c_str());
      return 2;
    }
    std::vector<double> hourly(trace->hours());
    for (std::size_t h = 0; h < hourly.size(); ++h) hourly[h] = *trace->Value(*z, h);
    for (const int length : grid.job_lengths_hours) {
      for (const int slack : grid.slacks_hours) {
        for (const bool interruptible : {false, true}) {
          const std::vector<double> means =
              *carbonroute::simulator::OracleMeans(hourly, {length, slack, interruptible});
          double sum = 0;
          for (const double mean : means) sum += mean;
          std::printf("%s,%d,%d,%d,%.6f\n", zone.c_str(), length, slack, interruptible ? 1 : 0,
                      sum / static_cast<double>(means.size()));
        }
      }
    }
  }
  std::fprintf(stderr, "seconds %.3f\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--zones=", 8) == 0) return PrintOracleMeans(argv[i] + 8);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
