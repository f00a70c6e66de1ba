#include "ledger/metered_energy.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace carbonroute::ledger {

std::string MeteredEnergyQuery(absl::Duration window) {
  const int64_t milliseconds = std::max<int64_t>(absl::ToInt64Milliseconds(window) - 1, 1);
  return absl::StrCat("sum by (namespace, pod, node, meter, component) (sum_over_time(",
                      kWorkloadEnergyRecord, "[", milliseconds, "ms]))");
}

MeteredPods CombineMeteredEnergy(const std::vector<MeteredSeries>& series) {
  struct Parts {
    std::optional<double> kepler_total, kepler_cpu, kepler_gpu, dcgm_gpu;
  };
  std::map<std::pair<std::string, std::string>, Parts> pods;
  MeteredPods out;
  for (const MeteredSeries& s : series) {
    if (s.pod.empty() || !std::isfinite(s.joules) || s.joules < 0) continue;
    Parts& parts = pods[{s.namespace_name, s.pod}];
    std::optional<double>* part = nullptr;
    if (s.meter == "kepler") {
      part = s.component == "total" ? &parts.kepler_total
             : s.component == "cpu" ? &parts.kepler_cpu
             : s.component == "gpu" ? &parts.kepler_gpu
                                    : nullptr;
    } else if (s.meter == "dcgm" && s.component == "gpu") {
      part = &parts.dcgm_gpu;
    }
    if (part == nullptr) continue;
    *part = part->value_or(0) + s.joules;
    if (!s.node.empty()) out.nodes.insert(s.node);
  }
  for (const auto& [pod, parts] : pods) {
    std::vector<PodEnergy> energy;
    if (parts.kepler_total) {
      energy.push_back({*parts.kepler_total, EnergySource::kKepler});
    } else {
      const double kepler =
          parts.kepler_cpu.value_or(0) + (parts.dcgm_gpu ? 0 : parts.kepler_gpu.value_or(0));
      if (parts.kepler_cpu || (parts.kepler_gpu && !parts.dcgm_gpu)) {
        energy.push_back({kepler, EnergySource::kKepler});
      }
      if (parts.dcgm_gpu) energy.push_back({*parts.dcgm_gpu, EnergySource::kDcgm});
    }
    if (!energy.empty()) out.pods[pod] = std::move(energy);
  }
  return out;
}

std::optional<absl::Duration> MeterWindow::Next(absl::Time now) {
  const absl::Duration window = now - from_;
  if (window > longest_) {
    from_ = now;
    return std::nullopt;
  }
  if (window < absl::Milliseconds(1)) return std::nullopt;
  return window;
}

}  // namespace carbonroute::ledger
