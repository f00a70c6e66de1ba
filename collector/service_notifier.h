// File: collector/service_notifier.h
//
// Tells the service manager how the collector is (sd_notify(3)): every tick,
// STATUS=<one line> ("14 locations, 0 failing, 1000 peers (998 answering)"),
// with WATCHDOG=1 only while no loop of the ProgressMonitor is overdue. A
// stuck poll or probe loop thus stops the keep-alive pings, and systemd
// restarts the service once WatchdogSec= passes (systemd.service(5),
// "WatchdogSec="). The tick is half the watchdog interval that systemd passes
// in WATCHDOG_USEC (sd_watchdog_enabled(3)), as that page recommends.
//
// Ownership: borrows the monitor and the clock, which must outlive it.
// Thread safety: Tick() and Run() from one thread.
#ifndef CARBONROUTE_COLLECTOR_SERVICE_NOTIFIER_H_
#define CARBONROUTE_COLLECTOR_SERVICE_NOTIFIER_H_

#include <functional>
#include <optional>
#include <string>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "base/progress_monitor.h"

namespace carbonroute::collector {

class ServiceNotifier {
 public:
  // Sends one sd_notify message ("STATUS=...\nWATCHDOG=1").
  using Send = std::function<void(const std::string& message)>;
  // `status` describes the service in one line; `send` defaults to sd_notify.
  ServiceNotifier(ProgressMonitor& progress, std::function<std::string()> status, Clock& clock,
                  Send send = nullptr);

  // One check at `now`: sends and returns the message. When a loop is
  // overdue, the status starts "stuck: <loops>;" and WATCHDOG=1 is left out
  // (logged once when it starts and once when it ends).
  std::string Tick(absl::Time now);

  // Ticks every `interval` until `stop`.
  void Run(absl::Duration interval, absl::Notification& stop);

  // Half the watchdog interval systemd asked for, or nullopt when it asked
  // for none (WATCHDOG_USEC unset, or WATCHDOG_PID naming another process).
  static std::optional<absl::Duration> WatchdogTick();

 private:
  ProgressMonitor& progress_;
  const std::function<std::string()> status_;
  Clock& clock_;
  const Send send_;
  bool stuck_ = false;  // whether the last tick found a loop overdue
};

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_SERVICE_NOTIFIER_H_
