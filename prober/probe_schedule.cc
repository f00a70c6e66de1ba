#include "prober/probe_schedule.h"

namespace carbonroute::prober {

ProbeSchedule::ProbeSchedule(absl::Duration interval, double jitter, uint64_t seed)
    : interval_(interval), jitter_(jitter), random_(seed) {}

void ProbeSchedule::Add(TargetId target, absl::Time now) {
  const absl::Time due = now + interval_ * std::uniform_real_distribution<double>(0, 1)(random_);
  const uint32_t generation = next_generation_++;
  due_[target] = {due, generation};
  heap_.push({due, target, generation});
}

void ProbeSchedule::Remove(TargetId target) { due_.erase(target); }

void ProbeSchedule::Pop() {
  while (!heap_.empty()) {
    const Entry& top = heap_.top();
    auto it = due_.find(top.target);
    if (it != due_.end() && it->second.second == top.generation) return;
    heap_.pop();  // removed, or re-added since
  }
}

std::vector<ProbeSchedule::TargetId> ProbeSchedule::Due(absl::Time now) {
  std::vector<TargetId> due;
  for (Pop(); !heap_.empty() && heap_.top().due <= now; Pop()) {
    const Entry entry = heap_.top();
    heap_.pop();
    const double u = std::uniform_real_distribution<double>(-1, 1)(random_);
    const absl::Time next = entry.due + interval_ * (1 + jitter_ * u);
    due_[entry.target] = {next, entry.generation};
    heap_.push({next, entry.target, entry.generation});
    due.push_back(entry.target);
  }
  return due;
}

absl::Time ProbeSchedule::NextDue() {
  Pop();
  return heap_.empty() ? absl::InfiniteFuture() : heap_.top().due;
}

}  // namespace carbonroute::prober
