// The prober's own CPU per probe, without sockets: 1000 peers at a 1 s
// interval on a fake clock, through a transport that answers every probe
// 100 µs after it was sent and hands the answers over at the loop's next
// wake (as the socket transport does with ICMP). What remains is the user-
// space work per probe: schedule, in-flight bookkeeping, statistics and the
// Prometheus series. bench/prober_footprint measures the whole process,
// kernel included, against fping.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "prober/prober.h"
#include "prometheus/registry.h"
#include "test/testing/fake_clock.h"
#include "test/testing/scripted_transport.h"

namespace carbonroute::prober {

namespace {

// Stops the prober every kBatch results.
class BatchStopper final : public ProbeObserver {
 public:
  static constexpr int kBatch = 10'000;  // results per Run()
  Prober* prober = nullptr;
  void OnProbeResult(const ProbeOutcome&) override {
    if (++results_ % kBatch == 0) prober->Stop();
  }

 private:
  int64_t results_ = 0;
};

void BM_ProbeLoop(benchmark::State& state) {
  const int peers = static_cast<int>(state.range(0));
  testing::FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  testing::ScriptedTransport transport(clock);
  transport.answer_all_after = absl::Microseconds(100);
  transport.collect_at_deadline = true;  // as the socket transport does with ICMP
  prometheus::Registry registry;
  exporter::CollectorMetrics metrics(registry);
  ProbeConfig config;
  BatchStopper stopper;
  ProberOptions options;
  options.observer = &stopper;
  options.seed = 1;
  Prober prober("bench", config, transport, clock, metrics, std::move(options));
  stopper.prober = &prober;
  std::vector<PeerConfig> targets;
  for (int i = 0; i < peers; ++i) {
    PeerConfig peer;
    peer.name = absl::StrCat("peer-", i);
    peer.address = absl::StrCat("10.", i / 62500, ".", i / 250 % 250, ".", 1 + i % 250);
    targets.push_back(peer);
  }
  prober.SetTargets(targets);
  constexpr int kBatch = BatchStopper::kBatch;
  prober.Run();  // warm up: every peer's series exists
  for (auto _ : state) prober.Run();
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["ns_per_probe"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kBatch),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ProbeLoop)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace carbonroute::prober

BENCHMARK_MAIN();
