#include "ledger/pass_intervals.h"

namespace carbonroute::ledger {

std::optional<ClosedInterval> PassIntervals::Close(const std::string& key, absl::Time now) {
  const auto last = last_.find(key);
  if (last == last_.end()) {  // the first pass opens the first interval
    last_[key] = now;
    return std::nullopt;
  }
  const absl::Duration length = now - last->second;
  last->second = now;
  if (length <= absl::ZeroDuration()) return std::nullopt;
  return ClosedInterval{.length = length, .gap = length > longest_};
}

bool PassIntervals::WouldPrice(const std::string& key, absl::Time now) const {
  const auto last = last_.find(key);
  if (last == last_.end()) return false;
  const absl::Duration length = now - last->second;
  return length > absl::ZeroDuration() && length <= longest_;
}

void PassIntervals::Forget(const std::string& prefix) {
  std::erase_if(last_, [&prefix](const auto& entry) { return entry.first.rfind(prefix, 0) == 0; });
}

}  // namespace carbonroute::ledger
