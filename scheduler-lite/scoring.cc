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

// A candidate with its location and region resolved from the model (views into
// the input or the model, which outlive the scoring call).
struct Resolved {
  absl::string_view name, location, region;
};

Resolved Resolve(const PlacementModel& model, const Candidate& input) {
  Resolved out{input.name, input.location, input.region};
  if (auto node = model.nodes.find(input.name); node != model.nodes.end()) {
    if (out.location.empty()) out.location = node->second.location;
    if (out.region.empty()) out.region = node->second.region;
  }
  if (out.region.empty() && out.location.empty() && model.region_locations.contains(input.name)) {
    out.region = input.name;
  }
  if (out.location.empty() && !out.region.empty()) {
    if (auto it = model.region_locations.find(out.region); it != model.region_locations.end()) {
      out.location = it->second;
    }
  }
  return out;
}

bool KnownOrigin(const PlacementModel& model, absl::string_view from) {
  return model.nodes.contains(from) || model.region_locations.contains(from) || model.rtt.contains(from);
}

absl::string_view RegionOf(const PlacementModel& model, absl::string_view place) {
  auto node = model.nodes.find(place);
  return node != model.nodes.end() ? absl::string_view(node->second.region) : place;
}

std::string Ms(absl::Duration d) { return absl::StrFormat("%.2f ms", absl::ToDoubleMilliseconds(d)); }

using RttRow = absl::flat_hash_map<std::string, RttEntry>;

// The latency origins of a workload, checked once per request.
struct Origin {
  const std::string* from;
  double limit_ms;
  bool known;
  absl::string_view region;
  const RttRow* row;  // the origin's own RTT row, if any (looked up once, not per candidate)
};

const RttRow* RowOf(const PlacementModel& model, absl::string_view source) {
  auto it = model.rtt.find(source);
  return it == model.rtt.end() ? nullptr : &it->second;
}

std::optional<RttEntry> Lookup(const PlacementModel& model, absl::string_view from, const RttRow* row,
                               absl::string_view from_region, const Resolved& to) {
  if (from == to.name) return RttEntry{absl::ZeroDuration(), "same node", model.built_at};
  if (row != nullptr) {
    if (auto it = row->find(to.name); it != row->end()) return it->second;
  }
  if (!from_region.empty() && !to.region.empty()) {
    if (const RttEntry* entry = model.FindRtt(from_region, to.region)) return *entry;
    if (from_region == to.region) return RttEntry{kSameRegionRtt, "declared: same region", model.built_at};
  }
  return std::nullopt;
}

// The carbon value and what it is based on; nullopt with the reason in `basis`.
std::optional<double> CarbonValue(const PlacementModel& model, absl::string_view location, const Window* window,
                                  const ScoringOptions& options, std::string& basis) {
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
  if (window != nullptr) {
    if (auto mean = carbon.forecast_mean.find(window->label); mean != carbon.forecast_mean.end()) {
      basis = absl::StrCat("forecast ", window->label);  // short enough to need no allocation
      return mean->second;
    }
    basis = absl::StrCat("current (no ", window->label, " forecast)");
    return carbon.grams_per_kwh;
  }
  basis = "current";
  return carbon.grams_per_kwh;
}

double Normalised(double value, double min, double max) {
  return max > min ? (value - min) / (max - min) : 0.0;
}

}  // namespace

std::optional<RttEntry> LookupRtt(const PlacementModel& model, const std::string& from, const Candidate& to) {
  return Lookup(model, from, RowOf(model, from), RegionOf(model, from), Resolve(model, to));
}

std::vector<ScoredCandidate> ScoreCandidates(const PlacementModel& model,
                                             const std::vector<Candidate>& candidates,
                                             const Workload& workload, const ScoringOptions& options) {
  std::vector<Origin> origins;
  for (const auto& [from, limit_ms] : workload.max_rtt_ms) {
    origins.push_back({&from, limit_ms, KnownOrigin(model, from), RegionOf(model, from), RowOf(model, from)});
  }
  const Window* window = nullptr;
  if (workload.expected_runtime) {
    window = &kWindows[2];
    for (const Window& w : kWindows) {
      if (w.length >= *workload.expected_runtime) {
        window = &w;
        break;
      }
    }
  }

  std::vector<ScoredCandidate> scored(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Resolved candidate = Resolve(model, candidates[i]);
    ScoredCandidate& out = scored[i];
    out.input_index = i;
    out.name = candidates[i].name;
    out.location = std::string(candidate.location);
    out.region = std::string(candidate.region);
    out.feasible = true;
    absl::Duration worst = absl::ZeroDuration();
    for (const Origin& origin : origins) {
      if (!origin.known) {
        out.feasible = false;
        out.reasons.push_back(absl::StrCat("unknown origin \"", *origin.from, "\" in the latency limit"));
        continue;
      }
      std::optional<RttEntry> rtt = Lookup(model, *origin.from, origin.row, origin.region, candidate);
      if (!rtt) {
        out.feasible = false;
        out.reasons.push_back(absl::StrCat("no RTT from ", *origin.from, " to ", out.name, ": the ",
                                           origin.limit_ms, " ms limit cannot be verified"));
        continue;
      }
      if (absl::ToDoubleMilliseconds(rtt->rtt) > origin.limit_ms) {
        out.feasible = false;
        out.reasons.push_back(absl::StrCat("RTT from ", *origin.from, " is ", Ms(rtt->rtt), " (", rtt->method,
                                           "), over the ", origin.limit_ms, " ms limit"));
        continue;
      }
      worst = std::max(worst, rtt->rtt);
    }
    if (!origins.empty()) out.latency = worst;
    out.grams_per_kwh = CarbonValue(model, candidate.location, window, options, out.carbon_basis);
    if (!out.grams_per_kwh) out.reasons.push_back(out.carbon_basis + ": scored as the dirtiest");
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
  if (!options.sort) return scored;
  // Sort indices, then move once: the entries are large.
  std::vector<std::size_t> order(scored.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const ScoredCandidate& a = scored[x];
    const ScoredCandidate& b = scored[y];
    if (a.feasible != b.feasible) return a.feasible;
    if (a.feasible && a.score != b.score) return a.score > b.score;
    return a.name < b.name;
  });
  std::vector<ScoredCandidate> sorted;
  sorted.reserve(scored.size());
  for (std::size_t i : order) sorted.push_back(std::move(scored[i]));
  return sorted;
}

int64_t ExtenderScore(const ScoredCandidate& candidate) {
  return candidate.feasible ? std::llround(candidate.score * 10) : 0;
}

int64_t FrameworkScore(const ScoredCandidate& candidate) {
  return candidate.feasible ? std::llround(candidate.score * 100) : 0;
}

}  // namespace carbonroute::scheduler_lite
