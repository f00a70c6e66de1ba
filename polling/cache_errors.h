// File: polling/cache_errors.h
//
// What the collector does with a failed cache operation (a full disk, an I/O
// error, a file locked by another process): the poll goes on with what it
// has (a fresh reading is still exported, the stored ones still are), the
// failure is counted in carbonroute_cache_errors_total{operation}, and it is
// logged once: the first failure while no operation is failing logs an
// error, later ones are only counted, and when every failing operation has
// succeeded again one line says the cache recovered and how many operations
// failed in between. A disk that stays full therefore logs one line, not one
// per reading per poll.
//
// Operations are the labels of contract/metric_labels.h kCacheOperations.
//
// Ownership: borrows the metrics, which must outlive this object.
// Thread safety: all methods are safe to call concurrently.
#ifndef CARBONROUTE_POLLING_CACHE_ERRORS_H_
#define CARBONROUTE_POLLING_CACHE_ERRORS_H_

#include <cstdint>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "exporter/collector_metrics.h"

namespace carbonroute::polling {

class CacheErrors {
 public:
  explicit CacheErrors(exporter::CollectorMetrics& metrics) : metrics_(metrics) {}

  // The outcome of one `operation`: a failure is counted, and logged if no
  // operation was failing; a success logs the recovery when `operation` was
  // the last one failing.
  void Record(const std::string& operation, const absl::Status& status);

  // Whether some operation has failed and not succeeded since (for tests).
  bool failing() const;

 private:
  void Failed(const std::string& operation, const absl::Status& status);
  void Succeeded(const std::string& operation);

  exporter::CollectorMetrics& metrics_;
  mutable absl::Mutex mutex_;
  std::set<std::string> failing_ ABSL_GUARDED_BY(mutex_);
  int64_t failures_since_first_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace carbonroute::polling

#endif  // CARBONROUTE_POLLING_CACHE_ERRORS_H_
