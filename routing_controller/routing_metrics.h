// File: routing_controller/routing_metrics.h
//
// The routing controller's series (names and labels: contract/metric_names.h,
// "scheduler-lite's routing controller"; docs/metrics.md).
//
// Thread safety: safe for concurrent use (prometheus-cpp's metrics are).
// Ownership: registers its families in the registry given, which must outlive it.
#ifndef CARBONROUTE_ROUTING_CONTROLLER_ROUTING_METRICS_H_
#define CARBONROUTE_ROUTING_CONTROLLER_ROUTING_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "controller_runtime/controller_metrics.h"
#include "routing/route_plan.h"
#include "routing/routing_policy.h"

namespace carbonroute::routing {

class RoutingMetrics {
 public:
  explicit RoutingMetrics(prometheus::Registry& registry);

  // One target of `policy` reconciled with `result` (see kRoutingWrites).
  void Reconciled(const RoutingPolicy& policy, const std::string& result);
  void Touched(const RoutingPolicy& policy, absl::Time now);
  // The weights of `target` as written, and each origin's expected intensity
  // under them and under the mesh's default; replaces what was set before.
  void SetWeights(const RoutingPolicy& policy, const std::string& target, const RoutePlan& plan);
  // Removes the gauges of a policy that no longer exists (its counters stay).
  void Forget(const RoutingPolicy& policy);
  // The leader gauge, errors by operation and the policies' last reconcile.
  controller_runtime::ControllerMetrics& common() { return common_; }

 private:
  using Labels = std::map<std::string, std::string>;
  prometheus::Family<prometheus::Gauge>& weight_;
  prometheus::Family<prometheus::Gauge>& expected_;
  prometheus::Family<prometheus::Counter>& writes_;
  controller_runtime::ControllerMetrics common_;
  // "namespace/policy" → the gauges' label sets it set, to remove them.
  std::map<std::string, std::vector<Labels>> weights_set_, expected_set_;
};

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_CONTROLLER_ROUTING_METRICS_H_
