#include "base/clock.h"

namespace carbonroute {
namespace {

class WallClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
  bool WaitUntil(absl::Time deadline, absl::Notification& stop) override {
    return stop.WaitForNotificationWithDeadline(deadline);
  }
};

}  // namespace

Clock& RealClock() {
  static WallClock* const clock = new WallClock();
  return *clock;
}

}  // namespace carbonroute
