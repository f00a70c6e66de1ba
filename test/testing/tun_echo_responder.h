// File: test/testing/tun_echo_responder.h
//
// Injected delay and loss for the prober's accuracy tests (this kernel has no
// netem): a TUN device in the calling thread's network namespace whose
// userspace handler answers ICMP echo requests (IPv4) to addresses of its
// subnet after a configured delay, drops a configured fraction, or stays
// silent. Everything else sent to the device (e.g. a TCP SYN) is read and
// never answered: a host that does not respond.
//
// Drops are deterministic (error diffusion: with fraction f, probe n is
// dropped when floor((n+1)·f) > floor(n·f)), so exactly f of any run of
// 1/f probes is lost; the test checks the prober's arithmetic, not a dice roll.
//
// Create() must run inside a namespace the test created (netns.h).
// Thread safety: Set*() from any thread; the handler runs on its own thread.
#ifndef CARBONROUTE_TEST_TESTING_TUN_ECHO_RESPONDER_H_
#define CARBONROUTE_TEST_TESTING_TUN_ECHO_RESPONDER_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace carbonroute::testing {

class TunEchoResponder {
 public:
  struct Behaviour {
    absl::Duration delay;
    double drop_fraction = 0;
    bool silent = false;
  };

  // Creates device `name` with address `gateway` (e.g. "10.77.0.1") in a /24.
  static absl::StatusOr<std::unique_ptr<TunEchoResponder>> Create(const std::string& name,
                                                                  const std::string& gateway);
  ~TunEchoResponder();

  // Behaviour of echo requests to `address` (unlisted addresses are silent).
  void Set(const std::string& address, Behaviour behaviour);

 private:
  TunEchoResponder() = default;
  void Loop();

  int fd_ = -1;
  int stop_fd_ = -1;
  std::thread thread_;
  absl::Mutex mutex_;
  std::map<uint32_t, Behaviour> behaviour_
      ABSL_GUARDED_BY(mutex_);  // by IPv4 address (network order)
  std::map<uint32_t, uint64_t> counts_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_TUN_ECHO_RESPONDER_H_
