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

enum class Basis : uint8_t { kCurrent, kForecast, kCurrentNoForecast, kNoLocation, kNoData, kStale };
enum class Failure : uint8_t { kNone, kUnknownOrigin, kNoRtt, kOverLimit };

// One candidate's evaluation, kept small (no strings): thousands of these make
// up an extender request's working set, and at ~230-byte ScoredCandidates a
// 5000-name request no longer fit in cache (bench/extender_benchmark.cc).
struct Evaluation {
  Resolved candidate;
  double grams = 0;       // valid when has_carbon
  double latency_ms = 0;  // the largest RTT over the origins
  double score = 0;
  const LocationCarbon* carbon = nullptr;
  Basis basis = Basis::kCurrent;
  Failure failure = Failure::kNone;
  bool has_carbon = false;
};

void EvaluateCarbon(const PlacementModel& model, const Window* window, const ScoringOptions& options,
                    Evaluation& e) {
  const absl::string_view location = e.candidate.location;
  auto it = location.empty() ? model.carbon.end() : model.carbon.find(location);
  if (it == model.carbon.end()) {
    e.basis = location.empty() ? Basis::kNoLocation : Basis::kNoData;
    return;
  }
  e.carbon = &it->second;
  if (e.carbon->valid_to && *e.carbon->valid_to + options.stale_after < options.now) {
    e.basis = Basis::kStale;
    return;
  }
  e.has_carbon = true;
  e.grams = e.carbon->grams_per_kwh;
  e.basis = Basis::kCurrent;
  if (window != nullptr) {
    if (auto mean = e.carbon->forecast_mean.find(window->label); mean != e.carbon->forecast_mean.end()) {
      e.grams = mean->second;
      e.basis = Basis::kForecast;
    } else {
      e.basis = Basis::kCurrentNoForecast;
    }
  }
}

std::string BasisText(const Evaluation& e, const Window* window) {
  switch (e.basis) {
    case Basis::kCurrent: return "current";
    case Basis::kForecast: return absl::StrCat("forecast ", window->label);  // short: no allocation
    case Basis::kCurrentNoForecast: return absl::StrCat("current (no ", window->label, " forecast)");
    case Basis::kNoLocation: return "no grid location known";
    case Basis::kNoData: return absl::StrCat("no carbon data for ", e.candidate.location);
    case Basis::kStale:
      return absl::StrCat("carbon data for ", e.candidate.location, " is stale (valid until ",
                          absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", *e.carbon->valid_to, absl::UTCTimeZone()), ")");
  }
  return "";
}

double Normalised(double value, double min, double max) {
  return max > min ? (value - min) / (max - min) : 0.0;
}

const Window* WindowFor(const Workload& workload) {
  if (!workload.expected_runtime) return nullptr;
  for (const Window& w : kWindows) {
    if (w.length >= *workload.expected_runtime) return &w;
  }
  return &kWindows[2];
}

// The scoring core: hard filters, carbon and latency values, normalised scores.
std::vector<Evaluation> Evaluate(const PlacementModel& model, const std::vector<Candidate>& candidates,
                                 const std::vector<Origin>& origins, const Window* window,
                                 const Workload& workload, const ScoringOptions& options) {
  std::vector<Evaluation> evaluations(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Evaluation& e = evaluations[i];
    e.candidate = Resolve(model, candidates[i]);
    for (const Origin& origin : origins) {
      if (!origin.known) {
        e.failure = Failure::kUnknownOrigin;
        break;
      }
      std::optional<RttEntry> rtt = Lookup(model, *origin.from, origin.row, origin.region, e.candidate);
      if (!rtt) {
        e.failure = Failure::kNoRtt;
        break;
      }
      const double ms = absl::ToDoubleMilliseconds(rtt->rtt);
      if (ms > origin.limit_ms) {
        e.failure = Failure::kOverLimit;
        break;
      }
      e.latency_ms = std::max(e.latency_ms, ms);
    }
    EvaluateCarbon(model, window, options, e);
  }
  double c_min = INFINITY, c_max = -INFINITY, l_min = INFINITY, l_max = -INFINITY;
  for (const Evaluation& e : evaluations) {
    if (e.failure != Failure::kNone) continue;
    if (e.has_carbon) {
      c_min = std::min(c_min, e.grams);
      c_max = std::max(c_max, e.grams);
    }
    l_min = std::min(l_min, e.latency_ms);
    l_max = std::max(l_max, e.latency_ms);
  }
  // The latency term counts only when the workload has latency limits.
  const double latency_weight = workload.max_rtt_ms.empty() ? 0.0 : options.latency_weight;
  const double weights = options.carbon_weight + latency_weight;
  for (Evaluation& e : evaluations) {
    if (e.failure != Failure::kNone) continue;
    const double c_hat = e.has_carbon ? Normalised(e.grams, c_min, c_max) : 1.0;
    const double l_hat = Normalised(e.latency_ms, l_min, l_max);
    e.score = weights > 0 ? 1.0 - (options.carbon_weight * c_hat + latency_weight * l_hat) / weights : 1.0;
  }
  return evaluations;
}

// Every reason a candidate was excluded, or what was assumed about it (the slow path: text).
std::vector<std::string> Reasons(const PlacementModel& model, const std::vector<Origin>& origins,
                                 const Evaluation& e, const Window* window) {
  std::vector<std::string> reasons;
  for (const Origin& origin : origins) {
    if (!origin.known) {
      reasons.push_back(absl::StrCat("unknown origin \"", *origin.from, "\" in the latency limit"));
      continue;
    }
    std::optional<RttEntry> rtt = Lookup(model, *origin.from, origin.row, origin.region, e.candidate);
    if (!rtt) {
      reasons.push_back(absl::StrCat("no RTT from ", *origin.from, " to ", e.candidate.name, ": the ",
                                     origin.limit_ms, " ms limit cannot be verified"));
    } else if (absl::ToDoubleMilliseconds(rtt->rtt) > origin.limit_ms) {
      reasons.push_back(absl::StrCat("RTT from ", *origin.from, " is ", Ms(rtt->rtt), " (", rtt->method,
                                     "), over the ", origin.limit_ms, " ms limit"));
    }
  }
  if (!e.has_carbon) reasons.push_back(BasisText(e, window) + ": scored as the dirtiest");
  return reasons;
}

std::vector<Origin> OriginsOf(const PlacementModel& model, const Workload& workload) {
  std::vector<Origin> origins;
  for (const auto& [from, limit_ms] : workload.max_rtt_ms) {
    origins.push_back({&from, limit_ms, KnownOrigin(model, from), RegionOf(model, from), RowOf(model, from)});
  }
  return origins;
}

}  // namespace

std::vector<ScoredCandidate> ScoreCandidates(const PlacementModel& model,
                                             const std::vector<Candidate>& candidates,
                                             const Workload& workload, const ScoringOptions& options) {
  const std::vector<Origin> origins = OriginsOf(model, workload);
  const Window* window = WindowFor(workload);
  const std::vector<Evaluation> evaluations = Evaluate(model, candidates, origins, window, workload, options);
  std::vector<ScoredCandidate> scored(evaluations.size());
  for (std::size_t i = 0; i < evaluations.size(); ++i) {
    const Evaluation& e = evaluations[i];
    ScoredCandidate& out = scored[i];
    out.input_index = i;
    out.name = candidates[i].name;
    out.location = std::string(e.candidate.location);
    out.region = std::string(e.candidate.region);
    out.feasible = e.failure == Failure::kNone;
    out.score = out.feasible ? e.score : 0;
    if (!origins.empty() && out.feasible) out.latency = absl::Milliseconds(e.latency_ms);
    if (e.has_carbon) out.grams_per_kwh = e.grams;
    out.carbon_basis = BasisText(e, window);
    if (!out.feasible || !e.has_carbon) out.reasons = Reasons(model, origins, e, window);
  }
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

CompactScores ScoreCompact(const PlacementModel& model, const std::vector<Candidate>& candidates,
                           const Workload& workload, const ScoringOptions& options) {
  const std::vector<Origin> origins = OriginsOf(model, workload);
  const Window* window = WindowFor(workload);
  const std::vector<Evaluation> evaluations = Evaluate(model, candidates, origins, window, workload, options);
  CompactScores out;
  out.extender_scores.resize(evaluations.size());
  for (std::size_t i = 0; i < evaluations.size(); ++i) {
    const Evaluation& e = evaluations[i];
    if (e.failure != Failure::kNone) {
      std::string reason;
      for (const std::string& r : Reasons(model, origins, e, window)) absl::StrAppend(&reason, reason.empty() ? "" : "; ", r);
      out.failures.emplace_back(i, std::move(reason));
      continue;
    }
    out.extender_scores[i] = static_cast<uint8_t>(std::llround(e.score * 10));
    const Evaluation* best = out.best ? &evaluations[*out.best] : nullptr;
    if (best == nullptr || e.score > best->score ||
        (e.score == best->score && e.candidate.name < best->candidate.name)) {
      out.best = i;
      out.best_location = std::string(e.candidate.location);
    }
  }
  return out;
}

int64_t ExtenderScore(const ScoredCandidate& candidate) {
  return candidate.feasible ? std::llround(candidate.score * 10) : 0;
}

int64_t FrameworkScore(const ScoredCandidate& candidate) {
  return candidate.feasible ? std::llround(candidate.score * 100) : 0;
}

}  // namespace carbonroute::scheduler_lite
