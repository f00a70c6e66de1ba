// File: keda/keda_metrics.h
//
// The KEDA publisher's metrics (names and meanings: contract/metric_names.h,
// "The collector's KEDA ConfigMaps"), registered in the collector's registry:
// whether this replica writes, and per ConfigMap its writes by result, its
// record count and when it was last known current. A ConfigMap's series exist
// from its first pass as the Lease holder.
//
// Ownership: borrows the registry, which must outlive it.
// Thread safety: prometheus-cpp's metrics are thread-safe.
#ifndef CARBONROUTE_KEDA_KEDA_METRICS_H_
#define CARBONROUTE_KEDA_KEDA_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <cstddef>
#include <string>

#include "absl/time/time.h"
#include "controller_runtime/controller_metrics.h"

namespace carbonroute::keda {

class KedaMetrics {
 public:
  explicit KedaMetrics(prometheus::Registry& registry);

  void SetLeader(bool leading) { common_.SetLeader(leading); }
  // The pass wrote the ConfigMap (`written`) or found it holding the same
  // records: either way it holds `records` records and is current at `now`.
  void Current(const std::string& namespace_name, const std::string& name, bool written,
               std::size_t records, absl::Time now);
  // The pass could not read the forecast or write the ConfigMap.
  void Failed(const std::string& namespace_name, const std::string& name);

 private:
  prometheus::Family<prometheus::Counter>& writes_;
  prometheus::Family<prometheus::Gauge>& records_;
  prometheus::Family<prometheus::Gauge>& last_current_;
  controller_runtime::ControllerMetrics common_;  // the leader gauge
};

}  // namespace carbonroute::keda

#endif  // CARBONROUTE_KEDA_KEDA_METRICS_H_
