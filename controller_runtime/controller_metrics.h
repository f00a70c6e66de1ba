// File: controller_runtime/controller_metrics.h
//
// The series every controller exports the same way, registered once per
// controller under the names it passes (contract/metric_names.h,
// ControllerMetricNames; docs/metrics.md):
//   leader          gauge: 1 while this replica holds the Lease (or acts alone), else 0;
//   errors          counter{operation}: failed API calls and reads, by operation
//                   (list, get, patch, status, event, lease, model, forecast);
//   last_reconcile  gauge{the object's labels}: Unix seconds of its last reconcile.
// A name left null registers no family (the KEDA publisher has no errors family:
// its writes counter says `failed`; hold reconciles no named object).
//
// Ownership: borrows the registry, which must outlive it. Thread safety:
// prometheus-cpp's metrics are thread-safe; every method may be called from any thread.
#ifndef CARBONROUTE_CONTROLLER_RUNTIME_CONTROLLER_METRICS_H_
#define CARBONROUTE_CONTROLLER_RUNTIME_CONTROLLER_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/labels.h>
#include <prometheus/registry.h>

#include <initializer_list>
#include <string>

#include "absl/time/time.h"
#include "contract/metric_names.h"

namespace carbonroute::controller_runtime {

class ControllerMetrics {
 public:
  // `operations`: the error series made at 0 from the start (so a rate() has a
  // first sample); others appear at their first error.
  ControllerMetrics(prometheus::Registry& registry,
                    const metric_names::ControllerMetricNames& names,
                    std::initializer_list<const char*> operations = {});

  void SetLeader(bool leading);
  // One failed `operation`; nothing when the controller has no errors family.
  void Error(const std::string& operation);
  // The object named by `object` (its labels) was reconciled at `now`.
  void Reconciled(const prometheus::Labels& object, absl::Time now);
  // The object is gone: its last-reconcile series goes.
  void Forget(const prometheus::Labels& object);

 private:
  prometheus::Gauge* leader_ = nullptr;
  prometheus::Family<prometheus::Counter>* errors_ = nullptr;
  prometheus::Family<prometheus::Gauge>* last_reconcile_ = nullptr;
};

}  // namespace carbonroute::controller_runtime

#endif  // CARBONROUTE_CONTROLLER_RUNTIME_CONTROLLER_METRICS_H_
