// File: hold/hold_metrics.h
//
// The hold controller's metrics (names and meanings: contract/metric_names.h,
// "scheduler-lite's hold controller"), registered in a prometheus-cpp
// registry. Every kind × reason series exists from the start (0).
//
// Thread safety: prometheus-cpp's metrics are thread-safe.
#ifndef CARBONROUTE_HOLD_HOLD_METRICS_H_
#define CARBONROUTE_HOLD_HOLD_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/summary.h>

#include <map>
#include <string>

#include "absl/time/time.h"
#include "controller_runtime/controller_metrics.h"
#include "hold/held_object.h"
#include "hold/hold_plan.h"

namespace carbonroute::hold {

class HoldMetrics {
 public:
  explicit HoldMetrics(prometheus::Registry& registry);

  void SetHeld(HeldKind kind, int held, int past_deadline);
  void Released(HeldKind kind, ReleaseReason reason, absl::Duration delay,
                std::optional<double> avoided_grams_per_kwh);
  // The leader gauge and errors by operation (list, patch, lease, forecast, event).
  controller_runtime::ControllerMetrics& common() { return common_; }

 private:
  prometheus::Family<prometheus::Gauge>& held_;
  prometheus::Family<prometheus::Gauge>& past_deadline_;
  prometheus::Family<prometheus::Counter>& releases_;
  prometheus::Family<prometheus::Histogram>& delay_;
  prometheus::Family<prometheus::Summary>& avoided_;
  controller_runtime::ControllerMetrics common_;
};

}  // namespace carbonroute::hold

#endif  // CARBONROUTE_HOLD_HOLD_METRICS_H_
