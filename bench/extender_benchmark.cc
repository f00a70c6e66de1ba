// Server-side time of the kube-scheduler extender's /prioritize (and /filter)
// for 100, 1000 and 5000 NodeNames: parse the ExtenderArgs, score against a
// model of 5000 nodes on 123 grid locations with a latency limit, write the
// reply — what ExtenderService does per request, without the HTTP transport
// (measured separately with wrk, see bench/extender_wrk).
//
//   ./build/bin/extender_benchmark
//
// Each iteration is timed on its own; p50 and p99 over all iterations are
// reported as counters (microseconds).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "extender/extender_protocol.h"
#include "extender/extender_service.h"
#include "placement/scoring.h"

namespace {

using namespace carbonroute::placement;  // NOLINT: benchmark
using namespace carbonroute::extender;   // NOLINT: benchmark

constexpr int kModelNodes = 5000;
constexpr int kLocations = 123;
const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

const PlacementModel& Model() {
  static const PlacementModel* const model = [] {
    auto m = std::make_unique<PlacementFacts>();
    m->built_at = kNow;
    for (int l = 0; l < kLocations; ++l) {
      LocationCarbon c;
      c.grams_per_kwh = 20 + (l * 37) % 700;
      c.valid_to = kNow + absl::Minutes(30);
      c.forecast_mean = {{"1h", c.grams_per_kwh}, {"4h", c.grams_per_kwh * 0.9}};
      m->carbon["Z" + std::to_string(l)] = c;
    }
    for (int n = 0; n < kModelNodes; ++n) {
      const std::string node = absl::StrCat("node-", n);
      m->nodes[node] = {absl::StrCat("Z", n % kLocations), absl::StrCat("region-", n % 40)};
      m->rtt["edge-gw-1"][node] = {absl::Microseconds(1000 + (n * 7919) % 60000),
                                   carbonroute::RttMethod::kMeasured, kNow};
    }
    return new PlacementModel(*m);  // as ModelBuilder::Build compiles it at each model refresh
  }();
  return *model;
}

std::string Args(int nodes) {
  std::string body =
      R"({"Pod":{"metadata":{"name":"web-1","labels":{"app":"web","delay_edge-gw-1":"40"},)"
      R"("annotations":{"carbonroute.io/expected-runtime":"2h"}},"spec":{"containers":null},"status":{}},)"
      R"("Nodes":null,"NodeNames":[)";
  for (int n = 0; n < nodes; ++n) absl::StrAppend(&body, n ? "," : "", "\"node-", n, "\"");
  body += "]}";
  return body;
}

void Run(benchmark::State& state, bool filter) {
  const PlacementModel& model = Model();
  const std::string body = Args(static_cast<int>(state.range(0)));
  ScoringOptions options;
  options.now = kNow;
  std::vector<double> micros;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(body);
    if (!args.ok()) state.SkipWithError("parse failed");
    const CompactScores scores =
        ScoreCompact(model, args->candidates, args->workload, options,
                     filter ? FailureDetail::kReasons : FailureDetail::kScoresOnly);
    std::string reply = filter ? FilterReply(*args, scores) : PrioritizeReply(*args, scores);
    benchmark::DoNotOptimize(reply);
    const double elapsed =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    micros.push_back(elapsed);
    state.SetIterationTime(elapsed / 1e6);
  }
  std::sort(micros.begin(), micros.end());
  state.counters["p50_us"] = micros[micros.size() / 2];
  state.counters["p99_us"] = micros[std::min(micros.size() - 1, micros.size() * 99 / 100)];
  state.counters["body_bytes"] = static_cast<double>(body.size());
}

void BM_Prioritize(benchmark::State& state) { Run(state, false); }
// As `scheduler-lite serve` runs (TuneAllocatorForLargeRequests is called there).
const bool kTuned = (TuneAllocatorForLargeRequests(), true);
void BM_Filter(benchmark::State& state) { Run(state, true); }
BENCHMARK(BM_Prioritize)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Filter)->Arg(100)->Arg(1000)->Arg(5000)->UseManualTime()->Unit(
    benchmark::kMicrosecond);

// The phases of one 5000-name prioritize, each alone.
void BM_Phase_Parse(benchmark::State& state) {
  const std::string body = Args(5000);
  for (auto _ : state) benchmark::DoNotOptimize(ParseExtenderArgs(body));
}
void BM_Phase_Score(benchmark::State& state) {
  const ExtenderArgs args = *ParseExtenderArgs(Args(5000));
  ScoringOptions options;
  options.now = kNow;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        ScoreCompact(Model(), args.candidates, args.workload, options, FailureDetail::kScoresOnly));
  }
}
void BM_Phase_Reply(benchmark::State& state) {
  const ExtenderArgs args = *ParseExtenderArgs(Args(5000));
  ScoringOptions options;
  options.now = kNow;
  const CompactScores scores =
      ScoreCompact(Model(), args.candidates, args.workload, options, FailureDetail::kScoresOnly);
  for (auto _ : state) benchmark::DoNotOptimize(PrioritizeReply(args, scores));
}
BENCHMARK(BM_Phase_Parse)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Phase_Score)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Phase_Reply)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
