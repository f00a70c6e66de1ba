#include "base/stop_signals.h"

#include <signal.h>
#include <unistd.h>

namespace carbonroute {
namespace {

sigset_t WatchedSet(bool hangup) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  if (hangup) sigaddset(&signals, SIGHUP);
  return signals;
}

}  // namespace

StopSignals::StopSignals(std::function<void(int)> on_signal, std::function<void()> on_hangup) {
  const sigset_t signals = WatchedSet(on_hangup != nullptr);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  thread_ = std::thread(
      [this, signals, on_signal = std::move(on_signal), on_hangup = std::move(on_hangup)] {
        int received = 0;
        while (sigwait(&signals, &received) == 0 && received == SIGHUP) {
          if (!releasing_.load()) on_hangup();
        }
        if (!releasing_.load() && on_signal) on_signal(received);
        if (!stop_.HasBeenNotified()) stop_.Notify();
      });
}

StopSignals::~StopSignals() {
  if (!stop_.HasBeenNotified()) {
    releasing_.store(true);
    kill(getpid(), SIGTERM);  // blocked in every thread: only the waiting thread takes it
  }
  thread_.join();
}

}  // namespace carbonroute
