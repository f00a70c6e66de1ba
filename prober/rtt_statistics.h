// File: prober/rtt_statistics.h
//
// Per-target statistics of a stream of probes: what the prober exports as
// carbonroute_rtt_seconds (smoothed) and carbonroute_probe_loss_ratio.
//
//   last      the most recent answered probe's RTT
//   min       the smallest RTT seen since the target was added
//   smoothed  EWMA: srtt ← (1 − α)·srtt + α·rtt, α = 1/8 (the SRTT estimator
//             and gain of RFC 6298 §2, as TCP and ping(8) use; the first
//             sample sets srtt = rtt)
//   loss      lost / sent over the last `window` probes (sliding, 0–1)
//
// A probe counts as lost when no reply arrived within the timeout, including
// a reply that arrives after it (the prober records a late reply as a loss, so
// it never reaches the RTT estimators). Freshness: the smoothed RTT is fresh only while
// the last answered probe is no older than `stale_after`; a target that stops
// answering goes to loss 1.0 over the window and its RTT stops being fresh
// (the exporter then removes the series rather than repeat an old value).
//
// Thread safety: not thread-safe; one prober thread owns each instance.
#ifndef CARBONROUTE_PROBER_RTT_STATISTICS_H_
#define CARBONROUTE_PROBER_RTT_STATISTICS_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "absl/time/time.h"

namespace carbonroute::prober {

class RttStatistics {
 public:
  // `window`: how many recent probes the loss ratio covers (REQUIRES: > 0).
  explicit RttStatistics(std::size_t window = 60);

  // A probe sent at `sent_at` was answered after `rtt`.
  void RecordReply(absl::Time sent_at, absl::Duration rtt);
  // A probe sent at `sent_at` got no reply within the timeout.
  void RecordLoss(absl::Time sent_at);

  std::optional<absl::Duration> last() const { return last_; }
  std::optional<absl::Duration> min() const { return min_; }
  std::optional<absl::Duration> smoothed() const { return srtt_; }
  // lost / sent over the window; nullopt before the first probe.
  std::optional<double> loss_ratio() const;
  // Whether the smoothed RTT reflects an answer no older than `stale_after`
  // (counted from when the answer arrived, sent_at + rtt).
  bool Fresh(absl::Time now, absl::Duration stale_after) const;
  // When the newest answer arrived (InfinitePast before the first).
  absl::Time last_answer_at() const { return last_answer_at_; }

  std::size_t sent() const { return sent_; }
  std::size_t received() const { return received_; }

 private:
  void Push(bool lost);

  const std::size_t window_;
  std::vector<bool> lost_;  // a ring of the last `window_` outcomes (window_ bits)
  std::size_t next_ = 0;    // where the next outcome goes
  std::size_t in_window_ = 0;
  std::size_t lost_in_window_ = 0;
  std::size_t sent_ = 0;
  std::size_t received_ = 0;
  std::optional<absl::Duration> last_, min_, srtt_;
  absl::Time last_answer_at_ = absl::InfinitePast();
};

}  // namespace carbonroute::prober

#endif  // CARBONROUTE_PROBER_RTT_STATISTICS_H_
