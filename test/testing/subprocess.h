// File: test/testing/subprocess.h
//
// Runs a real binary (the collector, Prometheus) for integration tests, with
// stdout and stderr captured to a file. The destructor sends SIGTERM and
// reaps the child, so a failing test never leaves a process behind.
#ifndef CARBONROUTE_TEST_TESTING_SUBPROCESS_H_
#define CARBONROUTE_TEST_TESTING_SUBPROCESS_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace carbonroute::testing {

class Subprocess {
 public:
  // Starts argv[0] with the arguments; output goes to `log_path`.
  Subprocess(std::vector<std::string> argv, std::string log_path);
  ~Subprocess();

  bool running() const { return pid_ > 0; }
  // Sends SIGTERM and returns the exit status (exit code, or 128 + signal).
  int Terminate();
  // Sends SIGKILL and returns the status once the process is reaped (128 + 9).
  int Kill();
  // Sends `signal` (e.g. SIGHUP) and returns at once.
  void Signal(int signal) const;
  std::string Log() const;

 private:
  int Stop(int signal);  // sends it, reaps the process, returns its status

  int pid_ = -1;
  std::string log_path_;
};

// Calls `ready` every 50 ms until it returns true or `timeout` passes.
// For waiting on a real process to come up, never for timing assertions.
bool WaitFor(const std::function<bool()>& ready, absl::Duration timeout);

// A TCP port on 127.0.0.1 that was free a moment ago, for a child that must
// be told its port before it starts (a server another one is configured to
// reach); a child that can bind port 0 and log its port should (LoggedPort).
// The port is drawn at random from below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range), so that no outgoing connection of a busy
// machine (curl, a Prometheus scrape) takes it before the child binds it, and
// a process never hands out the same port twice; 0 when none could be bound.
int FreeLoopbackPort();

// The port a child logged it listens on: the first "127.0.0.1:<port>" after
// `marker` in its log, once it appears (up to `timeout`); 0 when it did not.
int LoggedPort(const Subprocess& process, const std::string& marker,
               absl::Duration timeout = absl::Seconds(30));

// Reads a whole file ("" if it cannot be read).
std::string ReadFile(const std::string& path);

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_SUBPROCESS_H_
