// File: cli/progress_bar.h
//
// A one-line progress bar for long commands (`simulate`): done/total, percent
// and the estimated time left, redrawn in place ("\r") about five times a
// second from its own thread while a counter advances, and finished with a
// newline. Shown only when `enabled` (the caller passes isatty(stderr)):
// quiet otherwise, so logs and pipes get no control characters.
//
// Thread safety: the counter may be advanced from any thread; the bar is
// started and stopped by its owner (the destructor stops it).
#ifndef CARBONROUTE_CLI_PROGRESS_BAR_H_
#define CARBONROUTE_CLI_PROGRESS_BAR_H_

#include <atomic>
#include <cstddef>
#include <ostream>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace carbonroute::cli {

class ProgressBar {
 public:
  ProgressBar(std::ostream& out, std::size_t total, bool enabled);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  std::atomic<std::size_t>* counter() { return &done_; }

  // "[##########          ] 1234/5678  21%  ETA 0:42", `width` characters of bar.
  static std::string Line(std::size_t done, std::size_t total, absl::Duration elapsed,
                          int width = 30);

 private:
  void Draw();

  std::ostream& out_;
  const std::size_t total_;
  const absl::Time start_;
  std::atomic<std::size_t> done_{0};
  absl::Notification stop_;
  std::thread drawer_;
};

}  // namespace carbonroute::cli

#endif  // CARBONROUTE_CLI_PROGRESS_BAR_H_
