#include "collector/readiness.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace carbonroute::collector {

ProbeAnswer Readiness::Live(absl::Time now) const {
  const std::vector<ProgressMonitor::Overdue> overdue = progress_.OverdueAt(now);
  if (overdue.empty()) return {true, "ok"};
  return {false, absl::StrCat("stuck: ", DescribeOverdue(overdue))};
}

ProbeAnswer Readiness::Ready(absl::Time now) const {
  if (ready_.load()) return {true, "ok"};
  if (first_poll_done_.load() || !metrics_.ExportedReadings().empty() ||
      now - started_ >= first_poll_deadline_) {
    ready_ = true;
    return {true, "ok"};
  }
  return {false, absl::StrCat("starting: no reading exported yet and the first poll under way (",
                              absl::FormatDuration(absl::Trunc(now - started_, absl::Seconds(1))),
                              " of at most ", absl::FormatDuration(first_poll_deadline_), ")")};
}

}  // namespace carbonroute::collector
