#include "karmada/karmada_metrics.h"

#include "absl/strings/str_cat.h"
#include "contract/metric_labels.h"
#include "contract/metric_names.h"

namespace carbonroute::karmada {
namespace label = metric_labels;
namespace {

using Labels = std::map<std::string, std::string>;

Labels PolicyLabels(const CarbonPolicy& policy) {
  return {{label::kKind, NamesOf(policy.kind).kind},
          {label::kNamespace, policy.namespace_name},
          {label::kPolicy, policy.name}};
}

std::string Key(const CarbonPolicy& policy) {
  return absl::StrCat(NamesOf(policy.kind).kind, "/", policy.namespace_name, "/", policy.name);
}

Labels With(Labels labels, const std::string& key, const std::string& value) {
  labels[key] = value;
  return labels;
}

}  // namespace

KarmadaMetrics::KarmadaMetrics(prometheus::Registry& registry)
    : active_(prometheus::BuildGauge()
                  .Name(metric_names::kKarmadaClusterActive)
                  .Help("1 while the member cluster is chosen by the policy, else 0")
                  .Register(registry)),
      intensity_(prometheus::BuildGauge()
                     .Name(metric_names::kKarmadaClusterIntensity)
                     .Help("the carbon intensity the policy's choice was made on, gCO2eq/kWh")
                     .Register(registry)),
      moves_(prometheus::BuildCounter()
                 .Name(metric_names::kKarmadaMoves)
                 .Help("writes of a new clusterNames set to the policy's target")
                 .Register(registry)),
      reconciles_(prometheus::BuildCounter()
                      .Name(metric_names::kKarmadaReconciles)
                      .Help("reconciles by result: placed, unchanged, data_missing, "
                            "target_not_found, invalid, error")
                      .Register(registry)),
      seed_intensity_(prometheus::BuildGauge()
                          .Name(metric_names::kSeedClusterIntensity)
                          .Help("carbon intensity of the member cluster's location, gCO2eq/kWh "
                                "(carbon-aware-karmada-operator compatible)")
                          .Register(registry)),
      seed_reconciles_(prometheus::BuildCounter()
                           .Name(metric_names::kSeedReconciles)
                           .Help("reconciles per policy (carbon-aware-karmada-operator "
                                 "compatible)")
                           .Register(registry)),
      seed_errors_(prometheus::BuildCounter()
                       .Name(metric_names::kSeedReconcileErrors)
                       .Help("failed reconciles per policy (carbon-aware-karmada-operator "
                             "compatible)")
                       .Register(registry)),
      common_(registry, metric_names::kKarmadaControllerMetrics) {}

void KarmadaMetrics::Reconciled(const CarbonPolicy& policy, const std::string& result,
                                absl::Time now) {
  const Labels labels = PolicyLabels(policy);
  reconciles_.Add(With(labels, label::kResult, result)).Increment();
  common_.Reconciled(labels, now);
  seed_reconciles_.Add({{label::kApp, policy.name}}).Increment();
  seed_errors_.Add({{label::kApp, policy.name}});
  if (result == "error" || result == "invalid" || result == "target_not_found") {
    seed_errors_.Add({{label::kApp, policy.name}}).Increment();
  }
}

void KarmadaMetrics::RemoveSeries(PolicySeries& series) {
  for (const Labels& labels : series.active) active_.Remove(&active_.Add(labels));
  for (const Labels& labels : series.intensity) intensity_.Remove(&intensity_.Add(labels));
  for (const Labels& labels : series.seed) seed_intensity_.Remove(&seed_intensity_.Add(labels));
  series = {};
}

void KarmadaMetrics::SetClusters(const CarbonPolicy& policy, const PlacementChoice& choice,
                                 bool moved) {
  const Labels labels = PolicyLabels(policy);
  if (moved) moves_.Add(labels).Increment();
  moves_.Add(labels);
  // This policy's series of the last pass go; the new ones are set.
  PolicySeries& series = set_[Key(policy)];
  RemoveSeries(series);
  for (const ClusterDecision& cluster : choice.clusters) {
    Labels active = With(labels, label::kCluster, cluster.name);
    active_.Add(active).Set(cluster.active ? 1 : 0);
    series.active.push_back(std::move(active));
    if (!cluster.grams_per_kwh) continue;
    Labels own =
        With(With(labels, label::kCluster, cluster.name), label::kLocation, cluster.location);
    intensity_.Add(own).Set(*cluster.grams_per_kwh);
    series.intensity.push_back(std::move(own));
    Labels seed = {{label::kCluster, cluster.name},
                   {label::kLocation, cluster.location},
                   {label::kActive, cluster.active ? "true" : "false"}};
    seed_intensity_.Add(seed).Set(*cluster.grams_per_kwh);
    series.seed.push_back(std::move(seed));
  }
}

void KarmadaMetrics::Forget(const CarbonPolicy& policy) {
  const auto it = set_.find(Key(policy));
  if (it != set_.end()) {
    RemoveSeries(it->second);
    set_.erase(it);
  }
  common_.Forget(PolicyLabels(policy));
}

}  // namespace carbonroute::karmada
