#include "ledger/metered_energy.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

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

// The rules' minutes of the series `selector` picks ("" for all) in the
// window, per Pod, Node, meter and component.
std::string EnergyQuery(absl::string_view selector, absl::Duration window) {
  return absl::StrCat("sum by (namespace, pod, node, meter, component) (sum_over_time(",
                      kWorkloadEnergyRecord, selector, "[",
                      std::max<int64_t>(absl::ToInt64Milliseconds(window) - 1, 1), "ms]))");
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
  return EnergyQuery(
      absl::StrCat("{namespace=\"", namespace_name, "\",pod=~\"", pod_pattern, "\"}"), window);
}

void AddBySource(std::vector<PodEnergy>& total, const std::vector<PodEnergy>& more) {
  for (const PodEnergy& part : more) {
    const auto same = std::find_if(total.begin(), total.end(),
                                   [&part](const PodEnergy& e) { return e.source == part.source; });
    if (same == total.end()) {
      total.push_back(part);
    } else {
      same->joules += part.joules;
    }
  }
}

std::vector<PodEnergy> TotalBySource(const MeteredPods& metered) {
  std::vector<PodEnergy> out;
  for (const auto& [pod, energies] : metered.pods) AddBySource(out, energies);
  std::sort(out.begin(), out.end(),  // kepler, then dcgm (the enum's order)
            [](const PodEnergy& a, const PodEnergy& b) { return a.source < b.source; });
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

std::string MeteredEnergyQuery(absl::Duration window) { return EnergyQuery("", window); }

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
