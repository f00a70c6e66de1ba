#include "routing_controller/routing_metrics.h"

#include "absl/strings/str_cat.h"
#include "contract/metric_labels.h"
#include "contract/metric_names.h"

namespace carbonroute::routing {
namespace label = metric_labels;
namespace {

prometheus::Labels PolicyLabels(const RoutingPolicy& policy) {
  return {{label::kNamespace, policy.namespace_name}, {label::kPolicy, policy.name}};
}

std::string Key(const RoutingPolicy& policy) {
  return absl::StrCat(policy.namespace_name, "/", policy.name);
}

}  // namespace

RoutingMetrics::RoutingMetrics(prometheus::Registry& registry)
    : weight_(prometheus::BuildGauge()
                  .Name(metric_names::kRoutingWeight)
                  .Help("the share of an origin locality's requests sent to a locality, as "
                        "written (0-1)")
                  .Register(registry)),
      expected_(prometheus::BuildGauge()
                    .Name(metric_names::kRoutingExpectedIntensity)
                    .Help("the expected carbon intensity of a request from the origin, "
                          "gCO2eq/kWh: under the weights written (weighted) and under the "
                          "mesh's default, all local (local)")
                    .Register(registry)),
      writes_(prometheus::BuildCounter()
                  .Name(metric_names::kRoutingWrites)
                  .Help("target reconciles by result: written, unchanged, data_missing, "
                        "target_not_found, failover_configured, outlier_detection_missing, "
                        "invalid, error")
                  .Register(registry)),
      common_(registry, metric_names::kRoutingControllerMetrics) {}

void RoutingMetrics::Reconciled(const RoutingPolicy& policy, const std::string& result) {
  writes_
      .Add({{label::kNamespace, policy.namespace_name},
            {label::kPolicy, policy.name},
            {label::kResult, result}})
      .Increment();
}

void RoutingMetrics::Touched(const RoutingPolicy& policy, absl::Time now) {
  common_.Reconciled(PolicyLabels(policy), now);
}

void RoutingMetrics::SetWeights(const RoutingPolicy& policy, const std::string& target,
                                const RoutePlan& plan) {
  const std::string key = absl::StrCat(Key(policy), "/", target);
  for (const Labels& labels : weights_set_[key]) weight_.Remove(&weight_.Add(labels));
  for (const Labels& labels : expected_set_[key]) expected_.Remove(&expected_.Add(labels));
  weights_set_[key].clear();
  expected_set_[key].clear();
  const Labels base = {{label::kNamespace, policy.namespace_name},
                       {label::kPolicy, policy.name},
                       {label::kTarget, target}};
  for (const RouteRow& row : plan.rows) {
    const DistributeRow* written = plan.RowFrom(row.origin);
    if (written == nullptr) continue;
    for (const auto& [locality, weight] : written->to) {
      Labels labels = base;
      labels[label::kFrom] = row.origin;
      labels[label::kTo] = locality;
      weight_.Add(labels).Set(static_cast<double>(weight) / 100.0);
      weights_set_[key].push_back(labels);
    }
    Labels labels = base;
    labels[label::kFrom] = row.origin;
    if (const std::optional<double> weighted = ExpectedIntensity(*written, row)) {
      labels[label::kBasis] = "weighted";
      expected_.Add(labels).Set(*weighted);
      expected_set_[key].push_back(labels);
    }
    for (const RouteFlow& flow : row.flows) {
      if (flow.destination != row.origin || !flow.grams_per_kwh) continue;
      labels[label::kBasis] = "local";
      expected_.Add(labels).Set(*flow.grams_per_kwh);
      expected_set_[key].push_back(labels);
    }
  }
}

void RoutingMetrics::Forget(const RoutingPolicy& policy) {
  const std::string prefix = absl::StrCat(Key(policy), "/");
  for (auto* sets : {&weights_set_, &expected_set_}) {
    for (auto it = sets->begin(); it != sets->end();) {
      if (it->first.rfind(prefix, 0) != 0) {
        ++it;
        continue;
      }
      auto& family = sets == &weights_set_ ? weight_ : expected_;
      for (const Labels& labels : it->second) family.Remove(&family.Add(labels));
      it = sets->erase(it);
    }
  }
  common_.Forget(PolicyLabels(policy));
}

}  // namespace carbonroute::routing
