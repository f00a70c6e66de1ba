#include "ledger/metered_energy.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace carbonroute::ledger {

namespace {

// A name as an RE2 literal: Kubernetes names hold lowercase letters, digits,
// '-' and '.'; '.' is the one to escape.
std::string RegexLiteral(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '.' || c == '\\' || c == '"' || c == '|' || c == '(' || c == ')' || c == '[' ||
        c == ']' || c == '*' || c == '+' || c == '?' || c == '{' || c == '}' || c == '^' ||
        c == '$') {
      out += "\\\\";  // a backslash in the regex, escaped in the PromQL string
    }
    out += c;
  }
  return out;
}

std::string Milliseconds(absl::Duration window) {
  return absl::StrCat(std::max<int64_t>(absl::ToInt64Milliseconds(window) - 1, 1), "ms");
}

}  // namespace

std::string NamedPods(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    absl::StrAppend(&out, out.empty() ? "" : "|", RegexLiteral(name));
  }
  return out;
}

std::string RunPods(bool job, const std::string& name) {
  const std::string literal = RegexLiteral(name);
  return job ? absl::StrCat(literal, "-[a-z0-9]{5}|", literal, "-[0-9]+-[a-z0-9]{5}") : literal;
}

std::string MeteredRunQuery(const std::string& namespace_name, const std::string& pod_pattern,
                            absl::Duration window) {
  return absl::StrCat("sum by (namespace, pod, node, meter, component) (sum_over_time(",
                      kWorkloadEnergyRecord, "{namespace=\"", namespace_name, "\",pod=~\"",
                      pod_pattern, "\"}[", Milliseconds(window), "]))");
}

std::vector<PodEnergy> TotalBySource(const MeteredPods& metered) {
  std::optional<double> kepler, dcgm;
  for (const auto& [pod, energies] : metered.pods) {
    for (const PodEnergy& energy : energies) {
      std::optional<double>& total = energy.source == EnergySource::kDcgm ? dcgm : kepler;
      total = total.value_or(0) + energy.joules;
    }
  }
  std::vector<PodEnergy> out;
  if (kepler) out.push_back({*kepler, EnergySource::kKepler});
  if (dcgm) out.push_back({*dcgm, EnergySource::kDcgm});
  return out;
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

std::string MeteredEnergyQuery(absl::Duration window) {
  return absl::StrCat("sum by (namespace, pod, node, meter, component) (sum_over_time(",
                      kWorkloadEnergyRecord, "[", Milliseconds(window), "]))");
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
