// File: test/testing/probe_recorder.h
//
// Drives a Prober in tests and benchmarks: ProbeRecorder observes every probe
// result and runs the prober until each named peer has had a number of them;
// InlineResolution resolves host names inside Submit, so that on a FakeClock
// a name's address is there before the next probe.
#ifndef CARBONROUTE_TEST_TESTING_PROBE_RECORDER_H_
#define CARBONROUTE_TEST_TESTING_PROBE_RECORDER_H_

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "prober/prober.h"

namespace carbonroute::testing {

inline PeerConfig Peer(const std::string& name, const std::string& address,
                       ProbeProtocol protocol = ProbeProtocol::kIcmp, uint16_t port = 0) {
  PeerConfig peer;
  peer.name = name;
  peer.address = address;
  peer.protocol = protocol;
  peer.port = port;
  return peer;
}

struct ProbeResult {
  std::optional<absl::Duration> smoothed;
  std::vector<double> smoothed_ms;  // the smoothed RTT after each answered probe
  double loss = 0;                  // loss ratio over the window
  bool fresh = false;
  std::size_t received = 0;  // answered probes since the peer was added
  int outcomes = 0;          // results during this run

  // The median of the smoothed RTT over the last `n` answered probes of this run.
  double MedianSmoothedMs(std::size_t n) const {
    std::vector<double> tail(smoothed_ms.end() - std::min(n, smoothed_ms.size()),
                             smoothed_ms.end());
    std::sort(tail.begin(), tail.end());
    return tail.empty() ? NAN : tail[tail.size() / 2];
  }
};

// Records the last result of every peer; stops the prober it runs once
// each named peer has had enough results. Pass Options() to the Prober.
class ProbeRecorder final : public prober::ProbeObserver {
 public:
  // Options observed by this recorder, with a fixed seed (reproducible
  // jitter) and, if given, host names resolved by `executor`.
  prober::ProberOptions Options(std::unique_ptr<prober::ResolutionExecutor> executor = nullptr) {
    prober::ProberOptions options;
    options.observer = this;
    options.seed = 1;
    options.executor = std::move(executor);
    return options;
  }

  // Runs `prober` (on this thread) until each of `names` has had at least
  // `probes` results from now on; what the last result said about each peer.
  std::map<std::string, ProbeResult> RunUntil(prober::Prober& prober,
                                              const std::vector<std::string>& names, int probes) {
    results_.clear();
    prober_ = &prober;
    names_ = names;
    probes_ = probes;
    prober.Run();
    prober_ = nullptr;
    return results_;
  }

  void OnProbeResult(const prober::ProbeOutcome& outcome) override {
    ProbeResult& r = results_[outcome.target];
    r.smoothed = outcome.stats.smoothed();
    if (outcome.rtt && r.smoothed) r.smoothed_ms.push_back(absl::ToDoubleMilliseconds(*r.smoothed));
    r.loss = *outcome.stats.loss_ratio();  // set by the result just recorded
    r.fresh = outcome.fresh;
    r.received = outcome.stats.received();
    ++r.outcomes;
    ++total_;
    if (prober_ == nullptr) return;
    for (const std::string& name : names_) {
      if (results_[name].outcomes < probes_) return;
    }
    prober_->Stop();
  }

  // Results observed since construction, every peer counted.
  int64_t total() const { return total_; }

 private:
  std::map<std::string, ProbeResult> results_;
  prober::Prober* prober_ = nullptr;
  std::vector<std::string> names_;
  int probes_ = 0;
  int64_t total_ = 0;
};

// Resolves each request inside Submit, on the caller's thread.
class InlineResolution final : public prober::ResolutionExecutor {
 public:
  explicit InlineResolution(prober::Resolver resolver) : resolver_(std::move(resolver)) {}
  void Submit(Request request) override {
    results_.push_back({request.target, resolver_(request.host, request.protocol, request.port)});
  }
  std::vector<Result> TakeResults() override { return std::exchange(results_, {}); }

 private:
  prober::Resolver resolver_;
  std::vector<Result> results_;
};

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_PROBE_RECORDER_H_
