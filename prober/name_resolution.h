// File: prober/name_resolution.h
//
// Turning a peer's configured address into a socket address, for the prober.
//
// ResolveWithGetaddrinfo: an IP literal is parsed in place (no I/O); a host
// name goes through getaddrinfo(3) (AF_UNSPEC, AI_ADDRCONFIG: no IPv6 answer
// on a host without IPv6, and vice versa) and its first address is used.
// getaddrinfo can block for the resolver's whole timeout (resolv.conf(5):
// 5 s × attempts), which is why the prober runs it on a BackgroundResolver
// and never on its event loop.
//
// ResolutionExecutor: where the prober's resolutions run, so that none runs
// on its event loop. BackgroundResolver is the daemon's: one thread that
// resolves submitted names in order and calls `on_result` (the prober passes
// its transport's Wake) after each, so the event loop picks the result up at
// once. Tests on a FakeClock inject one that resolves inside Submit.
//
// Ownership: BackgroundResolver owns its thread; the destructor waits for a
// resolution in progress (at most the resolver's timeout) and drops the rest.
// Thread safety: Submit and TakeResults from any thread; the Resolver is
// called on the background thread only.
#ifndef CARBONROUTE_PROBER_NAME_RESOLUTION_H_
#define CARBONROUTE_PROBER_NAME_RESOLUTION_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "config/collector_config.h"
#include "prober/probe_transport.h"

namespace carbonroute::prober {

// Resolves a peer address (IP literal or host name) to one socket address
// with `port` set. Errors: kNotFound when the name has no address.
using Resolver = std::function<absl::StatusOr<ProbeEndpoint>(const std::string& host, ProbeProtocol,
                                                             uint16_t port)>;
absl::StatusOr<ProbeEndpoint> ResolveWithGetaddrinfo(const std::string& host,
                                                     ProbeProtocol protocol, uint16_t port);
// Whether `host` is an IPv4 or IPv6 literal (resolving it needs no I/O).
bool IsIpLiteral(const std::string& host);

class ResolutionExecutor {
 public:
  struct Request {
    uint32_t target = 0;  // the caller's id, returned with the result
    std::string host;
    ProbeProtocol protocol = ProbeProtocol::kIcmp;
    uint16_t port = 0;
  };
  struct Result {
    uint32_t target = 0;
    absl::StatusOr<ProbeEndpoint> endpoint;
  };

  virtual ~ResolutionExecutor() = default;
  virtual void Submit(Request request) = 0;
  // The results finished since the last call, in completion order.
  virtual std::vector<Result> TakeResults() = 0;
};

class BackgroundResolver final : public ResolutionExecutor {
 public:
  BackgroundResolver(Resolver resolver, std::function<void()> on_result);
  ~BackgroundResolver() override;

  BackgroundResolver(const BackgroundResolver&) = delete;
  BackgroundResolver& operator=(const BackgroundResolver&) = delete;

  void Submit(Request request) override;
  std::vector<Result> TakeResults() override;

 private:
  void Loop();

  const Resolver resolver_;
  const std::function<void()> on_result_;
  absl::Mutex mutex_;
  std::deque<Request> requests_ ABSL_GUARDED_BY(mutex_);
  std::vector<Result> results_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace carbonroute::prober

#endif  // CARBONROUTE_PROBER_NAME_RESOLUTION_H_
