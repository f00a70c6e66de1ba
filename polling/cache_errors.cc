#include "polling/cache_errors.h"

#include "spdlog/spdlog.h"

namespace carbonroute::polling {

void CacheErrors::Failed(const std::string& operation, const absl::Status& status) {
  metrics_.CountCacheError(operation);
  absl::MutexLock lock(&mutex_);
  ++failures_since_first_;
  const bool first = failing_.empty();
  failing_.insert(operation);
  if (first) {
    spdlog::error(
        "cache {} failed: {} (exporting what is held; further cache failures are counted in "
        "carbonroute_cache_errors_total, not logged, until the cache recovers)",
        operation, status.ToString());
  }
}

void CacheErrors::Succeeded(const std::string& operation) {
  absl::MutexLock lock(&mutex_);
  if (failing_.erase(operation) == 0 || !failing_.empty()) return;
  spdlog::info("cache recovered: {} succeeds again after {} failed cache operations", operation,
               failures_since_first_);
  failures_since_first_ = 0;
}

void CacheErrors::Record(const std::string& operation, const absl::Status& status) {
  if (status.ok()) {
    Succeeded(operation);
  } else {
    Failed(operation, status);
  }
}

bool CacheErrors::failing() const {
  absl::MutexLock lock(&mutex_);
  return !failing_.empty();
}

}  // namespace carbonroute::polling
