// File: rebalance/rebalance_metrics.h
//
// The re-placement controller's series (contract/metric_names.h,
// "scheduler-lite's re-placement controller"; docs/metrics.md): candidates per
// policy, eviction attempts by result, the grams its moves gained, and the
// series every controller exports (controller_runtime/controller_metrics.h).
//
// Ownership: registers in the registry given, which must outlive it.
// Thread safety: prometheus-cpp's metrics are thread-safe.
#ifndef CARBONROUTE_REBALANCE_REBALANCE_METRICS_H_
#define CARBONROUTE_REBALANCE_REBALANCE_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <string>

#include "absl/time/time.h"
#include "controller_runtime/controller_metrics.h"
#include "rebalance/rebalance_policy.h"

namespace carbonroute::rebalance {

// The `result` values of carbonroute_rebalance_evictions_total.
inline constexpr char kEvicted[] = "evicted";
inline constexpr char kWouldEvict[] = "would_evict";
inline constexpr char kBlockedByPdb[] = "blocked_by_pdb";
inline constexpr char kThrottled[] = "throttled";
inline constexpr char kFailed[] = "failed";

class RebalanceMetrics {
 public:
  explicit RebalanceMetrics(prometheus::Registry& registry);

  void SetCandidates(const RebalancePolicy& policy, int count);
  // One eviction attempt for `policy` with `result` (kEvicted, ...).
  void Eviction(const RebalancePolicy& policy, const std::string& result);
  // Adds `grams` (signed) to what `policy`'s moves gained.
  void Gained(const std::string& namespace_name, const std::string& policy, double grams);
  void Touched(const RebalancePolicy& policy, absl::Time now);
  // The policy is gone: its gauges go (its counters stay).
  void Forget(const RebalancePolicy& policy);
  controller_runtime::ControllerMetrics& common() { return common_; }

 private:
  prometheus::Family<prometheus::Gauge>& candidates_;
  prometheus::Family<prometheus::Counter>& evictions_;
  prometheus::Family<prometheus::Gauge>& gained_;
  controller_runtime::ControllerMetrics common_;
};

}  // namespace carbonroute::rebalance

#endif  // CARBONROUTE_REBALANCE_REBALANCE_METRICS_H_
