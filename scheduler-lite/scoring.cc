#include "scheduler-lite/scoring.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace carbonroute::scheduler_lite {
namespace {

struct Window {
  const char* label;
  absl::Duration length;
};
constexpr Window kWindows[] = {{"1h", absl::Hours(1)}, {"4h", absl::Hours(4)}, {"24h", absl::Hours(24)}};

Candidate Resolve(const PlacementModel& model, const Candidate& input) {
  Candidate out = input;
  if (auto node = model.nodes.find(input.name); node != model.nodes.end()) {
    if (out.location.empty()) out.location = node->second.location;
    if (out.region.empty()) out.region = node->second.region;
  }
  if (out.region.empty() && model.region_locations.contains(input.name)) out.region = input.name;
  if (out.location.empty() && !out.region.empty()) {
    if (auto it = model.region_locations.find(out.region); it != model.region_locations.end()) {
      out.location = it->second;
    }
  }
  return out;
}

bool KnownOrigin(const PlacementModel& model, const std::string& from) {
  if (model.nodes.contains(from) || model.region_locations.contains(from)) return true;
  auto it = model.rtt.lower_bound({from, ""});
  return it != model.rtt.end() && it->first.first == from;
}

std::string RegionOf(const PlacementModel& model, const std::string& place) {
  auto node = model.nodes.find(place);
  return node != model.nodes.end() ? node->second.region : place;
}

std::string Ms(absl::Duration d) { return absl::StrFormat("%.2f ms", absl::ToDoubleMilliseconds(d)); }

// The carbon value and what it is based on; nullopt with the reason in `basis`.
std::optional<double> CarbonValue(const PlacementModel& model, const std::string& location,
                                  const Workload& workload, const ScoringOptions& options,
                                  std::string& basis) {
  auto it = location.empty() ? model.carbon.end() : model.carbon.find(location);
  if (it == model.carbon.end()) {
    basis = location.empty() ? "no grid location known" : absl::StrCat("no carbon data for ", location);
    return std::nullopt;
  }
  const LocationCarbon& carbon = it->second;
  if (carbon.valid_to && *carbon.valid_to + options.stale_after < options.now) {
    basis = absl::StrCat("carbon data for ", location, " is stale (valid until ",
                         absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", *carbon.valid_to, absl::UTCTimeZone()), ")");
    return std::nullopt;
  }
  if (workload.expected_runtime) {
    const Window* chosen = &kWindows[2];
    for (const Window& window : kWindows) {
      if (window.length >= *workload.expected_runtime) {
        chosen = &window;
        break;
      }
    }
    if (auto mean = carbon.forecast_mean.find(chosen->label); mean != carbon.forecast_mean.end()) {
      basis = absl::StrCat("forecast mean ", chosen->label);
      return mean->second;
    }
    basis = absl::StrCat("current (no ", chosen->label, " forecast)");
    return carbon.grams_per_kwh;
  }
  basis = "current";
  return carbon.grams_per_kwh;
}

double Normalised(double value, double min, double max) {
  return max > min ? (value - min) / (max - min) : 0.0;
}

}  // namespace

std::optional<RttEntry> LookupRtt(const PlacementModel& model, const std::string& from,
                                  const Candidate& to) {
  if (from == to.name) return RttEntry{absl::ZeroDuration(), "same node", model.built_at};
  if (auto it = model.rtt.find({from, to.name}); it != model.rtt.end()) return it->second;
  const std::string from_region = RegionOf(model, from);
  if (!from_region.empty() && !to.region.empty()) {
    if (auto it = model.rtt.find({from_region, to.region}); it != model.rtt.end()) return it->second;
    if (from_region == to.region) return RttEntry{kSameRegionRtt, "declared: same region", model.built_at};
  }
  return std::nullopt;
}

std::vector<ScoredCandidate> ScoreCandidates(const PlacementModel& model,
                                             const std::vector<Candidate>& candidates,
                                             const Workload& workload, const ScoringOptions& options) {
  std::vector<ScoredCandidate> scored;
  for (const Candidate& input : candidates) {
    const Candidate candidate = Resolve(model, input);
    ScoredCandidate out;
    out.name = candidate.name;
    out.location = candidate.location;
    out.region = candidate.region;
    out.feasible = true;
    absl::Duration worst = absl::ZeroDuration();
    for (const auto& [from, limit_ms] : workload.max_rtt_ms) {
      if (!KnownOrigin(model, from)) {
        out.feasible = false;
        out.reasons.push_back(absl::StrCat("unknown origin \"", from, "\" in the latency limit"));
        continue;
      }
      std::optional<RttEntry> rtt = LookupRtt(model, from, candidate);
      if (!rtt) {
        out.feasible = false;
        out.reasons.push_back(absl::StrCat("no RTT from ", from, " to ", candidate.name,
                                           ": the ", limit_ms, " ms limit cannot be verified"));
        continue;
      }
      if (absl::ToDoubleMilliseconds(rtt->rtt) > limit_ms) {
        out.feasible = false;
        out.reasons.push_back(absl::StrCat("RTT from ", from, " is ", Ms(rtt->rtt), " (", rtt->method,
                                           "), over the ", limit_ms, " ms limit"));
        continue;
      }
      worst = std::max(worst, rtt->rtt);
    }
    if (!workload.max_rtt_ms.empty()) out.latency = worst;
    out.grams_per_kwh = CarbonValue(model, candidate.location, workload, options, out.carbon_basis);
    if (!out.grams_per_kwh) out.reasons.push_back(out.carbon_basis + ": scored as the dirtiest");
    scored.push_back(std::move(out));
  }

  double c_min = INFINITY, c_max = -INFINITY, l_min = INFINITY, l_max = -INFINITY;
  for (const ScoredCandidate& s : scored) {
    if (!s.feasible) continue;
    if (s.grams_per_kwh) {
      c_min = std::min(c_min, *s.grams_per_kwh);
      c_max = std::max(c_max, *s.grams_per_kwh);
    }
    const double l = s.latency ? absl::ToDoubleMilliseconds(*s.latency) : 0;
    l_min = std::min(l_min, l);
    l_max = std::max(l_max, l);
  }
  // The latency term counts only when the workload has latency limits.
  const double latency_weight = workload.max_rtt_ms.empty() ? 0.0 : options.latency_weight;
  const double weights = options.carbon_weight + latency_weight;
  for (ScoredCandidate& s : scored) {
    if (!s.feasible) {
      s.score = 0;
      continue;
    }
    const double c_hat = s.grams_per_kwh ? Normalised(*s.grams_per_kwh, c_min, c_max) : 1.0;
    const double l_hat = Normalised(s.latency ? absl::ToDoubleMilliseconds(*s.latency) : 0, l_min, l_max);
    s.score = weights > 0 ? 1.0 - (options.carbon_weight * c_hat + latency_weight * l_hat) / weights : 1.0;
  }
  std::sort(scored.begin(), scored.end(), [](const ScoredCandidate& a, const ScoredCandidate& b) {
    if (a.feasible != b.feasible) return a.feasible;
    if (a.feasible && a.score != b.score) return a.score > b.score;
    return a.name < b.name;
  });
  return scored;
}

int64_t ExtenderScore(const ScoredCandidate& candidate) {
  return candidate.feasible ? std::llround(candidate.score * 10) : 0;
}

int64_t FrameworkScore(const ScoredCandidate& candidate) {
  return candidate.feasible ? std::llround(candidate.score * 100) : 0;
}

}  // namespace carbonroute::scheduler_lite
