// File: karmada/karmada_metrics.h
//
// The Karmada controller's metrics (names and meanings:
// contract/metric_names.h, "scheduler-lite's Karmada controller"; docs/metrics.md),
// registered in a prometheus-cpp registry: carbonroute's own
// carbonroute_karmada_* series and the carbon-aware-karmada-operator's
// carbon_aware_karmada_operator_* series beside them. Unlike the operator,
// a cluster that changes between chosen and not chosen leaves one series
// (the other `active` value is removed), and a cluster without a reading has
// no intensity series (never 0).
//
// Thread safety: prometheus-cpp's metrics are thread-safe; Set* from one thread.
#ifndef CARBONROUTE_KARMADA_KARMADA_METRICS_H_
#define CARBONROUTE_KARMADA_KARMADA_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <map>
#include <string>

#include "absl/time/time.h"
#include "controller_runtime/controller_metrics.h"
#include "karmada/carbon_policy.h"
#include "karmada/placement_choice.h"

namespace carbonroute::karmada {

class KarmadaMetrics {
 public:
  explicit KarmadaMetrics(prometheus::Registry& registry);

  // One reconcile of `policy` ended with `result` (see kKarmadaReconciles).
  void Reconciled(const CarbonPolicy& policy, const std::string& result, absl::Time now);
  // The clusters as decided (gauges), and a move when the set changed.
  void SetClusters(const CarbonPolicy& policy, const PlacementChoice& choice, bool moved);
  // Removes the gauges of a policy that no longer exists (its counters stay).
  void Forget(const CarbonPolicy& policy);
  // The leader gauge, errors by operation and the policies' last reconcile.
  controller_runtime::ControllerMetrics& common() { return common_; }

 private:
  prometheus::Family<prometheus::Gauge>& active_;
  prometheus::Family<prometheus::Gauge>& intensity_;
  prometheus::Family<prometheus::Counter>& moves_;
  prometheus::Family<prometheus::Counter>& reconciles_;
  prometheus::Family<prometheus::Gauge>& seed_intensity_;
  prometheus::Family<prometheus::Counter>& seed_reconciles_;
  prometheus::Family<prometheus::Counter>& seed_errors_;
  controller_runtime::ControllerMetrics common_;
  // Per policy ("kind/namespace/name"), the labels of the gauges set last (to remove those that
  // went).
  struct PolicySeries {
    std::vector<std::map<std::string, std::string>> active, intensity, seed;
  };
  void RemoveSeries(PolicySeries& series);
  std::map<std::string, PolicySeries> set_;
};

}  // namespace carbonroute::karmada

#endif  // CARBONROUTE_KARMADA_KARMADA_METRICS_H_
