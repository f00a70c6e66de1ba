#include "ledger/power_model.h"

namespace carbonroute::ledger {

double PowerModel::Watts(const kube::PodRequests& requests) const {
  return requests.cpu_cores * watts_per_cpu + requests.memory_bytes / 1e9 * watts_per_gb +
         requests.gpus * watts_per_gpu;
}

double PowerModel::Joules(const kube::PodRequests& requests, double replicas,
                          absl::Duration interval) const {
  return Watts(requests) * replicas * absl::ToDoubleSeconds(interval);
}

}  // namespace carbonroute::ledger
