#include "collector/service_notifier.h"

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"

namespace carbonroute::collector {

ServiceNotifier::ServiceNotifier(ProgressMonitor& progress, std::function<std::string()> status,
                                 Clock& clock, Send send)
    : progress_(progress),
      status_(std::move(status)),
      clock_(clock),
      send_(send != nullptr ? std::move(send)
                            : [](const std::string& message) { sd_notify(0, message.c_str()); }) {}

std::string ServiceNotifier::Tick(absl::Time now) {
  const std::vector<ProgressMonitor::Overdue> overdue = progress_.OverdueAt(now);
  std::string message;
  if (overdue.empty()) {
    if (stuck_) spdlog::info("watchdog: every loop is making progress again");
    message = absl::StrCat("STATUS=", status_(), "\nWATCHDOG=1");
  } else {
    const std::string stuck = DescribeOverdue(overdue);
    if (!stuck_)
      spdlog::error("watchdog: stuck: {}; no longer telling systemd we are alive", stuck);
    message = absl::StrCat("STATUS=stuck: ", stuck, "; ", status_());
  }
  stuck_ = !overdue.empty();
  send_(message);
  return message;
}

void ServiceNotifier::Run(absl::Duration interval, absl::Notification& stop) {
  do {
    Tick(clock_.Now());
  } while (!clock_.WaitUntil(clock_.Now() + interval, stop));
}

std::optional<absl::Duration> ServiceNotifier::WatchdogTick() {
  uint64_t usec = 0;
  if (sd_watchdog_enabled(/*unset_environment=*/0, &usec) <= 0 || usec == 0) return std::nullopt;
  return absl::Microseconds(static_cast<int64_t>(usec)) / 2;
}

}  // namespace carbonroute::collector
