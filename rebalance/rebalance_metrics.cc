#include "rebalance/rebalance_metrics.h"

#include "contract/metric_labels.h"
#include "contract/metric_names.h"

namespace carbonroute::rebalance {
namespace label = metric_labels;
namespace {

prometheus::Labels PolicyLabels(const std::string& namespace_name, const std::string& policy) {
  return {{label::kNamespace, namespace_name}, {label::kPolicy, policy}};
}

}  // namespace

RebalanceMetrics::RebalanceMetrics(prometheus::Registry& registry)
    : candidates_(prometheus::BuildGauge()
                      .Name(metric_names::kRebalanceCandidates)
                      .Help("Pods a cleaner Node within their limits has beaten by more than the "
                            "tolerance for longer than minStay, whose move pays")
                      .Register(registry)),
      evictions_(prometheus::BuildCounter()
                     .Name(metric_names::kRebalanceEvictions)
                     .Help("eviction attempts by result: evicted, would_evict (dry run), "
                           "blocked_by_pdb, throttled, failed")
                     .Register(registry)),
      gained_(prometheus::BuildGauge()
                  .Name(metric_names::kRebalanceGramsGained)
                  .Help("gCO2eq the policy's moves gained since this replica started, signed: "
                        "the stays against staying, minus the restarts")
                  .Register(registry)),
      common_(registry, metric_names::kRebalanceControllerMetrics,
              {"list", "evict", "status", "event", "model"}) {}

void RebalanceMetrics::SetCandidates(const RebalancePolicy& policy, int count) {
  candidates_.Add(PolicyLabels(policy.namespace_name, policy.name)).Set(count);
}

void RebalanceMetrics::Eviction(const RebalancePolicy& policy, const std::string& result) {
  prometheus::Labels labels = PolicyLabels(policy.namespace_name, policy.name);
  labels[label::kResult] = result;
  evictions_.Add(labels).Increment();
}

void RebalanceMetrics::Gained(const std::string& namespace_name, const std::string& policy,
                              double grams) {
  gained_.Add(PolicyLabels(namespace_name, policy)).Increment(grams);
}

void RebalanceMetrics::Touched(const RebalancePolicy& policy, absl::Time now) {
  common_.Reconciled(PolicyLabels(policy.namespace_name, policy.name), now);
}

void RebalanceMetrics::Forget(const RebalancePolicy& policy) {
  const prometheus::Labels labels = PolicyLabels(policy.namespace_name, policy.name);
  candidates_.Remove(&candidates_.Add(labels));
  gained_.Remove(&gained_.Add(labels));
  common_.Forget(labels);
}

}  // namespace carbonroute::rebalance
