#include "base/progress_monitor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace carbonroute {

ProgressMonitor::LoopId ProgressMonitor::Register(std::string name) {
  absl::MutexLock lock(&mutex_);
  loops_.push_back({std::move(name)});
  return static_cast<LoopId>(loops_.size() - 1);
}

void ProgressMonitor::Expect(LoopId loop, absl::Time deadline) {
  absl::MutexLock lock(&mutex_);
  loops_.at(static_cast<std::size_t>(loop)).deadline = deadline;
}

void ProgressMonitor::Finish(LoopId loop) { Expect(loop, absl::InfiniteFuture()); }

std::vector<ProgressMonitor::Overdue> ProgressMonitor::OverdueAt(absl::Time now) const {
  absl::MutexLock lock(&mutex_);
  std::vector<Overdue> overdue;
  for (const Loop& loop : loops_) {
    if (loop.deadline < now) overdue.push_back({loop.name, now - loop.deadline});
  }
  return overdue;
}

std::string DescribeOverdue(const std::vector<ProgressMonitor::Overdue>& overdue) {
  return absl::StrJoin(overdue, ", ", [](std::string* out, const ProgressMonitor::Overdue& loop) {
    absl::StrAppend(out, loop.loop, " (",
                    absl::FormatDuration(absl::Trunc(loop.late, absl::Seconds(1))), " late)");
  });
}

}  // namespace carbonroute
