#include "prober/rtt_statistics.h"

#include <algorithm>

namespace carbonroute::prober {
namespace {

constexpr double kAlpha = 1.0 / 8;  // RFC 6298 §2.3 SRTT gain

}  // namespace

RttStatistics::RttStatistics(std::size_t window)
    : window_(std::max<std::size_t>(window, 1)), lost_(window_, false) {}

void RttStatistics::Push(bool lost) {
  ++sent_;
  if (in_window_ == window_) {
    lost_in_window_ -= lost_[next_];  // the oldest outcome leaves the window
  } else {
    ++in_window_;
  }
  lost_[next_] = lost;
  lost_in_window_ += lost;
  next_ = (next_ + 1) % window_;
}

void RttStatistics::RecordReply(absl::Time sent_at, absl::Duration rtt) {
  Push(/*lost=*/false);
  ++received_;
  last_ = rtt;
  min_ = min_ ? std::min(*min_, rtt) : rtt;
  srtt_ = srtt_ ? (1 - kAlpha) * *srtt_ + kAlpha * rtt : rtt;
  last_answer_at_ = std::max(last_answer_at_, sent_at + rtt);
}

void RttStatistics::RecordLoss(absl::Time) { Push(/*lost=*/true); }

std::optional<double> RttStatistics::loss_ratio() const {
  if (in_window_ == 0) return std::nullopt;
  return static_cast<double>(lost_in_window_) / static_cast<double>(in_window_);
}

bool RttStatistics::Fresh(absl::Time now, absl::Duration stale_after) const {
  return srtt_.has_value() && now - last_answer_at_ <= stale_after;
}

}  // namespace carbonroute::prober
