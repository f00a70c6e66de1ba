// File: base/clock.h
//
// The one seam for time. Logic that needs "now" takes an `absl::Time`; only the
// loops that wait (the collector's poll loop) hold a `Clock&`.
//
// Debian 12 ships Abseil 20220623, which has no `absl::Clock` (added in LTS
// 20260526), so carbonroute owns this small interface shaped like it, in
// base/, the leaf every binary links.
#ifndef CARBONROUTE_BASE_CLOCK_H_
#define CARBONROUTE_BASE_CLOCK_H_

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace carbonroute {

// A source of the current time that can also wait.
//
// Thread safety: implementations must be safe for concurrent use.
class Clock {
 public:
  virtual ~Clock() = default;

  // The current time (UTC instant).
  virtual absl::Time Now() const = 0;

  // Waits until `deadline` or until `stop` is notified, whichever comes first.
  // Returns true if `stop` was notified (the caller should wind down).
  virtual bool WaitUntil(absl::Time deadline, absl::Notification& stop) = 0;
};

// The wall clock: absl::Now(), and a wait that wakes early on `stop`.
// Returns a process-wide instance that must never be deleted.
Clock& RealClock();

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_CLOCK_H_
