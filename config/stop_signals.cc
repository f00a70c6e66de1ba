#include "config/stop_signals.h"

#include <signal.h>
#include <unistd.h>

namespace carbonroute {
namespace {

sigset_t StopSet() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

}  // namespace

StopSignals::StopSignals(std::function<void(int)> on_signal) {
  const sigset_t signals = StopSet();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  thread_ = std::thread([this, signals, on_signal = std::move(on_signal)] {
    int received = 0;
    sigwait(&signals, &received);
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
