// File: test/testing/scripted_transport.h
//
// A ProbeTransport on a FakeClock that answers each address as scripted
// (delay, a deterministic share of drops, silence, unreachable), for the
// prober's tests and its loop benchmark. Wait() jumps the clock to the next
// answer or the deadline, so no test waits in real time.
#ifndef CARBONROUTE_TEST_TESTING_SCRIPTED_TRANSPORT_H_
#define CARBONROUTE_TEST_TESTING_SCRIPTED_TRANSPORT_H_

#include <arpa/inet.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "prober/probe_transport.h"
#include "test/testing/fake_clock.h"

namespace carbonroute::testing {

using prober::ProbeAnswer;
using prober::ProbeEndpoint;

// An IPv4 endpoint for `ip` (a literal).
inline prober::ProbeEndpoint Endpoint(const std::string& ip) {
  prober::ProbeEndpoint endpoint;
  auto* in = reinterpret_cast<sockaddr_in*>(&endpoint.address);
  in->sin_family = AF_INET;
  inet_pton(AF_INET, ip.c_str(), &in->sin_addr);
  endpoint.length = sizeof(sockaddr_in);
  return endpoint;
}

// Answers each address as scripted, on a FakeClock: Wait() jumps to the next
// answer or the deadline.
class ScriptedTransport : public prober::ProbeTransport {
 public:
  struct Behaviour {
    absl::Duration delay = absl::Milliseconds(1);
    int drop_every_of_ten = 0;  // drop probes whose count % 10 < this (a deterministic fraction)
    bool silent = false;
    bool unreachable = false;
    // The answer reaches the prober this much after it arrived (the process
    // waited for a CPU), carrying the kernel's RTT sample (`delay`) as TCP's do.
    std::optional<absl::Duration> seen_late_with_kernel_rtt;
  };
  explicit ScriptedTransport(FakeClock& clock) : clock_(clock) {}

  // Like ICMP on the real transport: answers are collected when the wait
  // reaches its deadline, not at their own time (which they still carry).
  bool collect_at_deadline = false;
  int waits = 0;

  std::map<std::string, Behaviour> behaviour;  // by address text
  std::map<std::string, int> sent;
  std::vector<uint64_t> tokens;  // of every probe sent, in order
  // When set, every probe is answered after this delay whatever `behaviour`
  // says, and nothing is counted per address (the benchmark's hot path).
  std::optional<absl::Duration> answer_all_after;

  absl::StatusOr<absl::Time> Send(const prober::ProbeEndpoint& to, uint64_t token) override {
    const absl::Time now = clock_.Now();
    if (answer_all_after) {
      pending_.emplace(now + *answer_all_after,
                       prober::ProbeAnswer{token, now + *answer_all_after, true});
      return now;
    }
    tokens.push_back(token);
    const std::string address = to.ToString();
    const Behaviour& b = behaviour[address];
    const int n = sent[address]++;
    if (b.unreachable) {
      pending_.emplace(now, prober::ProbeAnswer{token, now, false});
    } else if (b.seen_late_with_kernel_rtt) {  // arrives in time; Wait() returns it late
      const absl::Time seen = now + b.delay + *b.seen_late_with_kernel_rtt;
      pending_.emplace(now + b.delay, prober::ProbeAnswer{token, seen, true, b.delay});
    } else if (!b.silent && n % 10 >= b.drop_every_of_ten) {
      pending_.emplace(now + b.delay, prober::ProbeAnswer{token, now + b.delay, true});
    }
    return now;
  }
  void Cancel(uint64_t) override { ++cancels; }
  void Wait(absl::Time deadline, std::vector<prober::ProbeAnswer>& out) override {
    out.clear();
    ++waits;
    if (collect_at_deadline) {
      if (deadline > clock_.Now()) clock_.Advance(deadline - clock_.Now());
      while (!pending_.empty() && pending_.begin()->first <= deadline) {
        out.push_back(pending_.begin()->second);
        pending_.erase(pending_.begin());
      }
    } else if (!pending_.empty() && pending_.begin()->first <= deadline) {
      const absl::Time t = pending_.begin()->first;
      if (t > clock_.Now()) clock_.Advance(t - clock_.Now());
      while (!pending_.empty() && pending_.begin()->first == t) {
        out.push_back(pending_.begin()->second);
        pending_.erase(pending_.begin());
        // Seen late: this process had no CPU until then.
        const absl::Time seen = out.back().received_at;
        if (seen > clock_.Now()) clock_.Advance(seen - clock_.Now());
      }
    } else if (deadline != absl::InfiniteFuture() && deadline > clock_.Now()) {
      clock_.Advance(deadline - clock_.Now());
    }
    if (after_wait) after_wait();
  }
  void Wake() override {}
  int cancels = 0;
  std::function<void()> after_wait;  // called at the end of every Wait (tests stop the prober)

 private:
  FakeClock& clock_;
  std::multimap<absl::Time, prober::ProbeAnswer> pending_;
};

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_SCRIPTED_TRANSPORT_H_
