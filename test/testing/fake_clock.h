// File: test/testing/fake_clock.h
//
// A Clock that only moves when told: WaitUntil() jumps straight to the
// deadline (unless `stop` was notified), so a poll loop runs a simulated day
// in microseconds with no sleeps.
#ifndef CARBONROUTE_TEST_TESTING_FAKE_CLOCK_H_
#define CARBONROUTE_TEST_TESTING_FAKE_CLOCK_H_

#include "absl/synchronization/mutex.h"
#include "base/clock.h"

namespace carbonroute::testing {

class FakeClock final : public Clock {
 public:
  explicit FakeClock(absl::Time start) : now_(start) {}

  absl::Time Now() const override {
    absl::MutexLock lock(&mutex_);
    return now_;
  }
  // Returns true (stop) when `stop` was notified or `deadline` reaches StopAt's time.
  bool WaitUntil(absl::Time deadline, absl::Notification& stop) override {
    if (stop.HasBeenNotified()) return true;
    absl::MutexLock lock(&mutex_);
    if (deadline >= stop_at_) return true;
    if (deadline > now_) now_ = deadline;
    ++waits_;
    return false;
  }
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mutex_);
    now_ += d;
  }
  // Waits whose deadline is at or after `t` end the loop instead of advancing.
  void StopAt(absl::Time t) {
    absl::MutexLock lock(&mutex_);
    stop_at_ = t;
  }
  int waits() const {
    absl::MutexLock lock(&mutex_);
    return waits_;
  }

 private:
  mutable absl::Mutex mutex_;
  absl::Time now_ ABSL_GUARDED_BY(mutex_);
  int waits_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::Time stop_at_ ABSL_GUARDED_BY(mutex_) = absl::InfiniteFuture();
};

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_FAKE_CLOCK_H_
