#include "keda/keda_metrics.h"

#include "contract/metric_labels.h"
#include "contract/metric_names.h"

namespace carbonroute::keda {
namespace label = metric_labels;
namespace {

prometheus::Labels Of(const std::string& namespace_name, const std::string& name) {
  return {{label::kNamespace, namespace_name}, {label::kConfigMap, name}};
}

}  // namespace

KedaMetrics::KedaMetrics(prometheus::Registry& registry)
    : writes_(prometheus::BuildCounter()
                  .Name(metric_names::kKedaWrites)
                  .Help("passes that wrote a KEDA ConfigMap (written) or could not (failed)")
                  .Register(registry)),
      records_(prometheus::BuildGauge()
                   .Name(metric_names::kKedaRecords)
                   .Help("records (past readings and forecast) the KEDA ConfigMap holds")
                   .Register(registry)),
      last_current_(prometheus::BuildGauge()
                        .Name(metric_names::kKedaLastCurrent)
                        .Help("Unix seconds of the last pass that left the KEDA ConfigMap current")
                        .Register(registry)),
      common_(registry, metric_names::kKedaPublisherMetrics) {}

void KedaMetrics::Current(const std::string& namespace_name, const std::string& name, bool written,
                          std::size_t records, absl::Time now) {
  prometheus::Labels labels = Of(namespace_name, name);
  records_.Add(labels).Set(static_cast<double>(records));
  last_current_.Add(labels).Set(absl::ToDoubleSeconds(now - absl::UnixEpoch()));
  labels[label::kResult] = "written";
  prometheus::Counter& writes = writes_.Add(labels);
  if (written) writes.Increment();
}

void KedaMetrics::Failed(const std::string& namespace_name, const std::string& name) {
  prometheus::Labels labels = Of(namespace_name, name);
  labels[label::kResult] = "failed";
  writes_.Add(labels).Increment();
}

}  // namespace carbonroute::keda
