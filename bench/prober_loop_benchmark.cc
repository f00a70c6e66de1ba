// The prober's own CPU per probe, without sockets: 1000 peers at a 1 s
// interval on a fake clock, through a transport that answers every probe
// 100 µs after it was sent and hands the answers over at the loop's next
// wake (as the socket transport does with ICMP). What remains is the user-
// space work per probe: schedule, in-flight bookkeeping, statistics and the
// Prometheus series. bench/prober_footprint measures the whole process,
// kernel included, against fping.
#include <benchmark/benchmark.h>

#include <arpa/inet.h>

#include <deque>

#include "absl/strings/str_cat.h"
#include "collector/prober.h"
#include "prometheus/registry.h"
#include "test/testing/fake_clock.h"

namespace carbonroute::collector {
namespace {

class InstantTransport : public ProbeTransport {
 public:
  explicit InstantTransport(testing::FakeClock& clock) : clock_(clock) {}
  absl::StatusOr<absl::Time> Send(const ProbeEndpoint&, uint64_t token) override {
    const absl::Time now = clock_.Now();
    pending_.push_back({token, now + absl::Microseconds(100), true});
    return now;
  }
  void Cancel(uint64_t) override {}
  void Wait(absl::Time deadline, std::vector<ProbeAnswer>& answers) override {
    answers.clear();
    if (deadline > clock_.Now() && deadline != absl::InfiniteFuture()) {
      clock_.Advance(deadline - clock_.Now());
    }
    while (!pending_.empty() && pending_.front().received_at <= clock_.Now()) {
      answers.push_back(pending_.front());
      pending_.pop_front();
    }
  }
  void Wake() override {}

 private:
  testing::FakeClock& clock_;
  std::deque<ProbeAnswer> pending_;
};

void BM_ProbeLoop(benchmark::State& state) {
  const int peers = static_cast<int>(state.range(0));
  testing::FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  InstantTransport transport(clock);
  prometheus::Registry registry;
  exporter::CollectorMetrics metrics(registry);
  ProbeConfig config;
  Prober prober("bench", config, transport, clock, metrics);
  std::vector<PeerConfig> targets;
  for (int i = 0; i < peers; ++i) {
    PeerConfig peer;
    peer.name = absl::StrCat("peer-", i);
    peer.address = absl::StrCat("10.", i / 62500, ".", i / 250 % 250, ".", 1 + i % 250);
    targets.push_back(peer);
  }
  prober.SetTargets(targets);
  constexpr int kBatch = 10'000;  // results per Run()
  int results = 0;
  prober.SetListener([&](const ProbeOutcome&) {
    if (++results % kBatch == 0) prober.Stop();
  });
  prober.Run();  // warm up: every peer's series exists
  for (auto _ : state) prober.Run();
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["ns_per_probe"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kBatch),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ProbeLoop)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace carbonroute::collector

BENCHMARK_MAIN();
