// File: base/progress_monitor.h
//
// Liveness of a daemon's loops, for a watchdog (systemd's WatchdogSec=,
// sd_watchdog_enabled(3)). Each loop promises, before every step, the time by
// which it will promise again: before work, now + the longest that work may
// take; before a wait, the wake time + a slack. A loop that has not come back
// by its promise is overdue: it is stuck (a hung call, a deadlock), and the
// watchdog stops reporting the process alive, so that systemd restarts it.
//
// A registered loop has no promise until its first Expect (a loop that never
// started is not overdue: the daemon may not run it); Finish() ends a loop
// that returned normally.
//
// Thread safety: every method may be called from any thread.
#ifndef CARBONROUTE_BASE_PROGRESS_MONITOR_H_
#define CARBONROUTE_BASE_PROGRESS_MONITOR_H_

#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace carbonroute {

class ProgressMonitor {
 public:
  using LoopId = int;

  // A loop past its promise: its name and by how long.
  struct Overdue {
    std::string loop;
    absl::Duration late;
  };

  // Registers a loop named `name` (for messages, e.g. "poll loop of watttime").
  LoopId Register(std::string name);
  // The loop will call Expect again, or Finish, by `deadline`.
  void Expect(LoopId loop, absl::Time deadline);
  // The loop ended normally: it has no deadline any more.
  void Finish(LoopId loop);

  // The loops whose deadline is before `now`, in registration order.
  std::vector<Overdue> OverdueAt(absl::Time now) const;

 private:
  struct Loop {
    std::string name;
    absl::Time deadline = absl::InfiniteFuture();
  };
  mutable absl::Mutex mutex_;
  std::vector<Loop> loops_ ABSL_GUARDED_BY(mutex_);
};

// "poll loop of watttime (3m late), prober (1s late)".
std::string DescribeOverdue(const std::vector<ProgressMonitor::Overdue>& overdue);

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_PROGRESS_MONITOR_H_
