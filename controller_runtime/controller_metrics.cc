#include "controller_runtime/controller_metrics.h"

#include "contract/metric_labels.h"

namespace carbonroute::controller_runtime {

ControllerMetrics::ControllerMetrics(prometheus::Registry& registry,
                                     const metric_names::ControllerMetricNames& names,
                                     std::initializer_list<const char*> operations) {
  if (names.leader != nullptr) {
    leader_ = &prometheus::BuildGauge()
                   .Name(names.leader)
                   .Help("1 while this replica holds the Lease (or acts alone), else 0")
                   .Register(registry)
                   .Add({});
  }
  if (names.errors != nullptr) {
    errors_ = &prometheus::BuildCounter()
                   .Name(names.errors)
                   .Help("failed API calls and reads, by operation")
                   .Register(registry);
    for (const char* operation : operations) errors_->Add({{metric_labels::kOperation, operation}});
  }
  if (names.last_reconcile != nullptr) {
    last_reconcile_ = &prometheus::BuildGauge()
                           .Name(names.last_reconcile)
                           .Help("Unix seconds of the object's last reconcile")
                           .Register(registry);
  }
}

void ControllerMetrics::SetLeader(bool leading) {
  if (leader_ != nullptr) leader_->Set(leading ? 1 : 0);
}

void ControllerMetrics::Error(const std::string& operation) {
  if (errors_ != nullptr) errors_->Add({{metric_labels::kOperation, operation}}).Increment();
}

void ControllerMetrics::Reconciled(const prometheus::Labels& object, absl::Time now) {
  if (last_reconcile_ != nullptr) {
    last_reconcile_->Add(object).Set(absl::ToDoubleSeconds(now - absl::UnixEpoch()));
  }
}

void ControllerMetrics::Forget(const prometheus::Labels& object) {
  if (last_reconcile_ != nullptr && last_reconcile_->Has(object)) {
    last_reconcile_->Remove(&last_reconcile_->Add(object));
  }
}

}  // namespace carbonroute::controller_runtime
