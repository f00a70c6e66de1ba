// File: test/testing/probe_until.h
//
// Drives a Prober in a test: runs it until each named peer has had a number
// of probe results, and returns what the last result said about each.
#ifndef CARBONROUTE_TEST_TESTING_PROBE_UNTIL_H_
#define CARBONROUTE_TEST_TESTING_PROBE_UNTIL_H_

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collector/prober.h"

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

// Runs `prober` (on this thread) until each of `names` has had at least
// `probes` results from now on.
inline std::map<std::string, ProbeResult> ProbeUntil(collector::Prober& prober,
                                                     const std::vector<std::string>& names,
                                                     int probes) {
  std::map<std::string, ProbeResult> results;
  prober.SetListener([&](const collector::ProbeOutcome& outcome) {
    ProbeResult& r = results[outcome.target];
    r.smoothed = outcome.stats.smoothed();
    if (outcome.rtt && r.smoothed) r.smoothed_ms.push_back(absl::ToDoubleMilliseconds(*r.smoothed));
    r.loss = *outcome.stats.loss_ratio();  // set by the result just recorded
    r.fresh = outcome.fresh;
    r.received = outcome.stats.received();
    ++r.outcomes;
    for (const std::string& name : names) {
      if (results[name].outcomes < probes) return;
    }
    prober.Stop();
  });
  prober.Run();
  return results;
}

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_PROBE_UNTIL_H_
