// File: base/stop_signals.h
//
// Turns SIGINT/SIGTERM into an absl::Notification for the daemons' loops,
// and optionally SIGHUP into a reload callback (the daemons' convention:
// `systemctl reload`, `kill -HUP`).
//
// The constructor blocks the signals in the calling thread, and so in every
// thread started after it: construct it in main before any library starts a
// thread (an earlier thread would leave SIGTERM deliverable there and the
// default action would kill the process). A thread then waits for them: on
// SIGHUP it calls `on_hangup` and goes on waiting; on SIGINT or SIGTERM it
// calls `on_signal` and notifies stop(). Without `on_hangup`, SIGHUP keeps its
// default action (the process ends). The destructor releases that thread if
// no stop signal came (without calling `on_signal`) and joins it.
//
// Thread safety: stop() may be read from any thread. One instance per process.
#ifndef CARBONROUTE_BASE_STOP_SIGNALS_H_
#define CARBONROUTE_BASE_STOP_SIGNALS_H_

#include <atomic>
#include <functional>
#include <thread>

#include "absl/synchronization/notification.h"

namespace carbonroute {

class StopSignals {
 public:
  // `on_signal` receives SIGINT or SIGTERM (may be empty). `on_hangup` runs
  // on the signal thread, one call at a time (may be empty).
  explicit StopSignals(std::function<void(int)> on_signal = nullptr,
                       std::function<void()> on_hangup = nullptr);
  ~StopSignals();

  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  absl::Notification& stop() { return stop_; }

 private:
  absl::Notification stop_;
  std::atomic<bool> releasing_{false};
  std::thread thread_;
};

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_STOP_SIGNALS_H_
