// File: prober/probe_schedule.h
//
// When to probe each target: every `interval`, with jitter, so that a thousand
// targets do not all fire in the same millisecond (a burst distorts RTTs and
// looks like a flood to the peers).
//
//   first probe  uniformly spread over [now, now + interval)
//   next probe   previous due time + interval × (1 + jitter·u), u uniform in [−1, 1)
//
// Targets are the caller's integer ids (the prober's dense target ids), so the
// loop's hot path copies no names. Due times are kept in a min-heap: Due()
// costs O(k log n) for k due targets. Removing a target is lazy (its heap
// entries are skipped). The random source is seeded, so tests and benchmarks
// are reproducible.
//
// Thread safety: not thread-safe; the prober's event loop owns it.
#ifndef CARBONROUTE_PROBER_PROBE_SCHEDULE_H_
#define CARBONROUTE_PROBER_PROBE_SCHEDULE_H_

#include <cstdint>
#include <queue>
#include <random>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"

namespace carbonroute::prober {

class ProbeSchedule {
 public:
  using TargetId = uint32_t;

  // REQUIRES: interval > 0, 0 ≤ jitter < 1.
  ProbeSchedule(absl::Duration interval, double jitter, uint64_t seed);

  void Add(TargetId target, absl::Time now);
  void Remove(TargetId target);
  std::size_t size() const { return due_.size(); }

  // Targets whose probe is due at or before `now`, earliest first; each is
  // rescheduled for its next probe.
  std::vector<TargetId> Due(absl::Time now);
  // The earliest due time (InfiniteFuture when empty): how long the loop may sleep.
  absl::Time NextDue();

 private:
  struct Entry {
    absl::Time due;
    TargetId target;
    uint32_t generation;
    bool operator>(const Entry& other) const { return due > other.due; }
  };
  void Pop();  // drops stale heap entries at the top

  const absl::Duration interval_;
  const double jitter_;
  std::mt19937_64 random_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
  absl::flat_hash_map<TargetId, std::pair<absl::Time, uint32_t>> due_;  // → (due, generation)
  uint32_t next_generation_ = 0;
};

}  // namespace carbonroute::prober

#endif  // CARBONROUTE_PROBER_PROBE_SCHEDULE_H_
