#include "cli/progress_bar.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace carbonroute::cli {

ProgressBar::ProgressBar(std::ostream& out, std::size_t total, bool enabled)
    : out_(out), total_(total), start_(absl::Now()) {
  if (!enabled) return;
  drawer_ = std::thread([this] {
    while (!stop_.WaitForNotificationWithTimeout(absl::Milliseconds(200))) Draw();
    Draw();
    out_ << "\n" << std::flush;
  });
}

ProgressBar::~ProgressBar() {
  stop_.Notify();
  if (drawer_.joinable()) drawer_.join();
}

void ProgressBar::Draw() {
  out_ << "\r" << Line(done_.load(std::memory_order_relaxed), total_, absl::Now() - start_)
       << std::flush;
}

std::string ProgressBar::Line(std::size_t done, std::size_t total, absl::Duration elapsed,
                              int width) {
  done = std::min(done, total);
  const double fraction = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(fraction * width);
  std::string eta = "--:--";
  if (done > 0) {
    const int64_t left = absl::ToInt64Seconds(
        elapsed * (static_cast<double>(total - done) / static_cast<double>(done)));
    eta = absl::StrFormat("%d:%02d", left / 60, left % 60);
  }
  return absl::StrFormat("[%s%s] %d/%d %3d%%  ETA %s", std::string(filled, '#'),
                         std::string(width - filled, ' '), done, total,
                         static_cast<int>(fraction * 100), eta);
}

}  // namespace carbonroute::cli
