#include "scheduler-lite/scoring.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/median.h"
#include "contract/forecast_windows.h"

namespace carbonroute::scheduler_lite {
namespace {

using Window = ForecastWindow;

// A candidate with its location and region resolved from the model (views into
// the input or the model, which outlive the scoring call).
struct Resolved {
  absl::string_view name, location, region;
};

bool KnownOrigin(const PlacementModel& model, absl::string_view from) {
  return model.nodes.contains(from) || model.region_locations.contains(from) ||
         model.rtt.contains(from);
}

absl::string_view RegionOf(const PlacementModel& model, absl::string_view place) {
  auto node = model.nodes.find(place);
  return node != model.nodes.end() ? absl::string_view(node->second.region) : place;
}

std::string Ms(absl::Duration d) {
  return absl::StrFormat("%.2f ms", absl::ToDoubleMilliseconds(d));
}

using RttRow = absl::flat_hash_map<std::string, RttEntry>;
constexpr uint32_t kNoId = ScoringIndex::kNone;
constexpr double kNotLookedUp = -1;  // in Origin::region_ms (an RTT is never negative)

// The latency origins of a workload, checked once per request.
struct Origin {
  const std::string* from;
  double limit_ms;
  bool known;
  absl::string_view region;
  const RttRow* row;                     // the origin's own RTT row, if any (for the reasons' text)
  const std::vector<double>* dense_row;  // the same row by place id (ScoringIndex::Row)
  std::vector<double> region_ms;         // by candidate region id: kNotLookedUp, NaN (none) or ms
  absl::string_view zone;                // the origin node's zone ("" if unknown or a region)
  absl::flat_hash_map<absl::string_view, double> zone_ms;  // by candidate zone: NaN (none) or ms
  bool is_region =
      false;  // a region, not a node: a candidate of that name gets the same-region RTT
};

// An RTT with where it came from (for the reasons' text).
struct FoundRtt {
  absl::Duration rtt;
  absl::string_view provenance;  // RttMethodName(), "declared: same region" or "same node"
};

// RTT between two regions: the static matrix, else the same-region convention.
std::optional<FoundRtt> RegionRtt(const PlacementModel& model, absl::string_view from_region,
                                  absl::string_view to_region) {
  if (from_region.empty() || to_region.empty()) return std::nullopt;
  if (const RttEntry* entry = model.FindRtt(from_region, to_region)) {
    return FoundRtt{entry->rtt, RttMethodName(entry->method)};
  }
  if (from_region == to_region) {
    // Two places in one region are never farther apart than the region is
    // from its nearest neighbour in the matrix.
    absl::Duration rtt = kSameRegionRtt;
    if (auto row = model.rtt.find(from_region); row != model.rtt.end()) {
      for (const auto& [target, entry] : row->second) {
        if (target != from_region && model.region_locations.contains(target)) {
          rtt = std::min(rtt, entry.rtt);
        }
      }
    }
    return FoundRtt{rtt, "declared: same region"};
  }
  return std::nullopt;
}

// RTT from the origin node to a node of `to_zone` that its row does not
// list (a sampled probe mesh): the median of the origin's own measured
// entries to that zone, else the model's zone-pair RTT.
std::optional<FoundRtt> ZoneRtt(const PlacementModel& model, const Origin& origin,
                                absl::string_view to_zone) {
  if (origin.zone.empty() || to_zone.empty()) return std::nullopt;
  if (origin.row != nullptr) {
    std::vector<absl::Duration> own;
    for (const auto& [target, entry] : *origin.row) {
      if (entry.method == RttMethod::kMeasured && model.ZoneOf(target) == to_zone) {
        own.push_back(entry.rtt);
      }
    }
    if (!own.empty()) return FoundRtt{Median(own), "measured: median of its row to the zone"};
  }
  if (auto row = model.zone_rtt.find(origin.zone); row != model.zone_rtt.end()) {
    if (auto it = row->second.find(to_zone); it != row->second.end()) {
      return FoundRtt{it->second, "measured: zone-pair median"};
    }
  }
  return std::nullopt;
}

// The RTT lookup of the header, with its provenance.
std::optional<FoundRtt> Lookup(const PlacementModel& model, const Origin& origin,
                               const Resolved& to) {
  if (*origin.from == to.name && !origin.is_region) {
    return FoundRtt{absl::ZeroDuration(), "same node"};
  }
  if (origin.row != nullptr) {
    if (auto it = origin.row->find(to.name); it != origin.row->end()) {
      return FoundRtt{it->second.rtt, RttMethodName(it->second.method)};
    }
  }
  if (std::optional<FoundRtt> zone = ZoneRtt(model, origin, model.ZoneOf(to.name))) return zone;
  return RegionRtt(model, origin.region, to.region);
}

enum class Basis : uint8_t {
  kCurrent,
  kForecast,
  kCurrentNoForecast,
  kNoLocation,
  kNoData,
  kStale
};
enum class Failure : uint8_t { kFeasible, kUnknownOrigin, kNoRtt, kOverLimit };

// The carbon value of one grid location for this request (computed once per
// location, not per candidate).
struct CarbonValue {
  bool looked_up = false;
  bool has_carbon = false;
  Basis basis = Basis::kNoLocation;
  double grams = 0;  // valid when has_carbon
  const LocationCarbon* carbon = nullptr;
};

// One candidate's evaluation, kept small (no strings): thousands of these make
// up an extender request's working set (bench/extender_benchmark.cc).
struct Evaluation {
  Resolved candidate;
  uint32_t place = kNoId, location_id = kNoId, region_id = kNoId;  // ScoringIndex ids
  double latency_ms = 0;  // the largest RTT over the origins
  double score = 0;
  const CarbonValue* carbon = nullptr;
  Failure failure = Failure::kFeasible;
};

// The candidate's location and region, through the index: the input's own
// location/region first, then the node's, then a region-named candidate, then
// the region's grid location.
void ResolveInto(const ScoringIndex& index, const Candidate& input, Evaluation& e) {
  Resolved& r = e.candidate;
  r = {input.name, input.location, input.region};
  e.place = index.PlaceId(r.name);
  e.location_id = r.location.empty() ? kNoId : index.LocationId(r.location);
  e.region_id = r.region.empty() ? kNoId : index.RegionId(r.region);
  if (e.place != kNoId) {
    const ScoringIndex::Place& place = index.place(e.place);
    if (place.is_node) {
      if (r.location.empty() && place.location != kNoId) {
        e.location_id = place.location;
        r.location = index.location(place.location);
      }
      if (r.region.empty() && place.region != kNoId) {
        e.region_id = place.region;
        r.region = index.region(place.region);
      }
    }
    if (r.region.empty() && r.location.empty() && place.is_region) {
      r.region = r.name;
      e.region_id = index.RegionId(r.name);
    }
  }
  if (r.location.empty() && e.region_id != kNoId) {
    if (const uint32_t location = index.RegionLocation(e.region_id); location != kNoId) {
      e.location_id = location;
      r.location = index.location(location);
    }
  }
}

// The RTT lookup of the header through the index, in milliseconds.
std::optional<double> RttMs(const ScoringIndex& index, Origin& origin, const Evaluation& e) {
  if (*origin.from == e.candidate.name && !origin.is_region) return 0.0;
  if (origin.dense_row != nullptr && e.place != kNoId) {
    if (const double ms = (*origin.dense_row)[e.place]; !std::isnan(ms)) return ms;
  }
  if (!origin.zone.empty()) {
    if (const absl::string_view zone = index.model().ZoneOf(e.candidate.name); !zone.empty()) {
      auto [it, inserted] = origin.zone_ms.try_emplace(zone, 0.0);
      if (inserted) {
        std::optional<FoundRtt> found = ZoneRtt(index.model(), origin, zone);
        it->second = found ? absl::ToDoubleMilliseconds(found->rtt)
                           : std::numeric_limits<double>::quiet_NaN();
      }
      if (!std::isnan(it->second)) return it->second;
    }
  }
  if (e.region_id == kNoId) {  // a region the model does not name: look it up directly
    std::optional<FoundRtt> entry = RegionRtt(index.model(), origin.region, e.candidate.region);
    if (!entry) return std::nullopt;
    return absl::ToDoubleMilliseconds(entry->rtt);
  }
  double& ms = origin.region_ms[e.region_id];
  if (ms == kNotLookedUp) {
    std::optional<FoundRtt> entry = RegionRtt(index.model(), origin.region, e.candidate.region);
    ms = entry ? absl::ToDoubleMilliseconds(entry->rtt) : std::numeric_limits<double>::quiet_NaN();
  }
  if (std::isnan(ms)) return std::nullopt;
  return ms;
}

CarbonValue CarbonOf(const PlacementModel& model, absl::string_view location, const Window* window,
                     const ScoringOptions& options) {
  CarbonValue v;
  v.looked_up = true;
  auto it = location.empty() ? model.carbon.end() : model.carbon.find(location);
  if (it == model.carbon.end()) {
    v.basis = location.empty() ? Basis::kNoLocation : Basis::kNoData;
    return v;
  }
  v.carbon = &it->second;
  if (v.carbon->valid_to && *v.carbon->valid_to + options.stale_after < options.now) {
    v.basis = Basis::kStale;
    return v;
  }
  v.has_carbon = true;
  v.grams = v.carbon->grams_per_kwh;
  v.basis = Basis::kCurrent;
  if (window != nullptr) {
    if (auto mean = v.carbon->forecast_mean.find(window->label);
        mean != v.carbon->forecast_mean.end()) {
      v.grams = mean->second;
      v.basis = Basis::kForecast;
    } else {
      v.basis = Basis::kCurrentNoForecast;
    }
  }
  return v;
}

std::string BasisText(const Evaluation& e, const Window* window) {
  switch (e.carbon->basis) {
    case Basis::kCurrent:
      return "current";
    case Basis::kForecast:
      return absl::StrCat("forecast ", window->label);  // short: no allocation
    case Basis::kCurrentNoForecast:
      return absl::StrCat("current (no ", window->label, " forecast)");
    case Basis::kNoLocation:
      return "no grid location known";
    case Basis::kNoData:
      return absl::StrCat("no carbon data for ", e.candidate.location);
    case Basis::kStale:
      return absl::StrCat(
          "carbon data for ", e.candidate.location, " is stale (valid until ",
          absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", *e.carbon->carbon->valid_to, absl::UTCTimeZone()),
          ")");
  }
  return "";
}

double Normalised(double value, double min, double max) {
  return max > min ? (value - min) / (max - min) : 0.0;
}

const Window* WindowFor(const Workload& workload) {
  return ForecastWindowFor(workload.expected_runtime);
}

// The per-request memo of carbon values: one per grid location id, plus the
// two without an id (no location; a location the model does not name).
struct CarbonMemo {
  std::vector<CarbonValue> by_location;
  CarbonValue no_location, unknown_location;
};

const CarbonValue* CarbonFor(const ScoringIndex& index, const Window* window,
                             const ScoringOptions& options, CarbonMemo& memo, const Evaluation& e) {
  if (e.location_id == kNoId) {
    if (e.candidate.location.empty()) return &memo.no_location;
    return &memo.unknown_location;
  }
  CarbonValue& value = memo.by_location[e.location_id];
  if (!value.looked_up)
    value = CarbonOf(index.model(), index.location(e.location_id), window, options);
  return &value;
}

// The scoring core: hard filters, carbon and latency values, normalised scores.
// `memo` must outlive the evaluations (they point into it).
std::vector<Evaluation> Evaluate(const ScoringIndex& index,
                                 const std::vector<Candidate>& candidates,
                                 std::vector<Origin>& origins, const Window* window,
                                 const Workload& workload, const ScoringOptions& options,
                                 CarbonMemo& memo) {
  memo.by_location.assign(index.location_count(), CarbonValue{});
  memo.no_location.basis = Basis::kNoLocation;
  memo.unknown_location.basis = Basis::kNoData;
  std::vector<Evaluation> evaluations(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Evaluation& e = evaluations[i];
    ResolveInto(index, candidates[i], e);
    for (Origin& origin : origins) {
      if (!origin.known) {
        e.failure = Failure::kUnknownOrigin;
        break;
      }
      const std::optional<double> ms = RttMs(index, origin, e);
      if (!ms) {
        e.failure = Failure::kNoRtt;
        break;
      }
      if (*ms > origin.limit_ms) {
        e.failure = Failure::kOverLimit;
        break;
      }
      e.latency_ms = std::max(e.latency_ms, *ms);
    }
    e.carbon = CarbonFor(index, window, options, memo, e);
  }
  double c_min = INFINITY, c_max = -INFINITY, l_min = INFINITY, l_max = -INFINITY;
  for (const Evaluation& e : evaluations) {
    if (e.failure != Failure::kFeasible) continue;
    if (e.carbon->has_carbon) {
      c_min = std::min(c_min, e.carbon->grams);
      c_max = std::max(c_max, e.carbon->grams);
    }
    l_min = std::min(l_min, e.latency_ms);
    l_max = std::max(l_max, e.latency_ms);
  }
  // The latency term counts only when the workload has latency limits.
  const double latency_weight = workload.max_rtt_ms.empty() ? 0.0 : options.latency_weight;
  const double weights = options.carbon_weight + latency_weight;
  for (Evaluation& e : evaluations) {
    if (e.failure != Failure::kFeasible) continue;
    const double c_hat = e.carbon->has_carbon ? Normalised(e.carbon->grams, c_min, c_max) : 1.0;
    const double l_hat = Normalised(e.latency_ms, l_min, l_max);
    e.score = weights > 0 ? 1.0 - (options.carbon_weight * c_hat + latency_weight * l_hat) / weights
                          : 1.0;
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
    std::optional<FoundRtt> rtt = Lookup(model, origin, e.candidate);
    if (!rtt) {
      reasons.push_back(absl::StrCat("no RTT from ", *origin.from, " to ", e.candidate.name,
                                     ": the ", origin.limit_ms, " ms limit cannot be verified"));
    } else if (absl::ToDoubleMilliseconds(rtt->rtt) > origin.limit_ms) {
      reasons.push_back(absl::StrCat("RTT from ", *origin.from, " is ", Ms(rtt->rtt), " (",
                                     rtt->provenance, "), over the ", origin.limit_ms,
                                     " ms limit"));
    }
  }
  if (!e.carbon->has_carbon) reasons.push_back(BasisText(e, window) + ": scored as the dirtiest");
  return reasons;
}

std::vector<Origin> OriginsOf(const ScoringIndex& index, const Workload& workload) {
  const PlacementModel& model = index.model();
  std::vector<Origin> origins;
  for (const auto& [from, limit_ms] : workload.max_rtt_ms) {
    auto row = model.rtt.find(from);
    origins.push_back({&from,
                       limit_ms,
                       KnownOrigin(model, from),
                       RegionOf(model, from),
                       row == model.rtt.end() ? nullptr : &row->second,
                       index.Row(from),
                       std::vector<double>(index.region_count(), kNotLookedUp),
                       model.ZoneOf(from),
                       {},
                       !model.nodes.contains(from) && model.region_locations.contains(from)});
  }
  return origins;
}

}  // namespace

const ForecastWindow* ForecastWindowFor(std::optional<absl::Duration> runtime) {
  if (!runtime) return nullptr;
  for (const ForecastWindow& w : kForecastWindows) {
    if (w.length >= *runtime) return &w;
  }
  return &kForecastWindows[2];
}

std::vector<ScoredCandidate> ScoreCandidates(const ScoringIndex& index,
                                             const std::vector<Candidate>& candidates,
                                             const Workload& workload,
                                             const ScoringOptions& options) {
  std::vector<Origin> origins = OriginsOf(index, workload);
  const Window* window = WindowFor(workload);
  CarbonMemo memo;
  const std::vector<Evaluation> evaluations =
      Evaluate(index, candidates, origins, window, workload, options, memo);
  std::vector<ScoredCandidate> scored(evaluations.size());
  for (std::size_t i = 0; i < evaluations.size(); ++i) {
    const Evaluation& e = evaluations[i];
    ScoredCandidate& out = scored[i];
    out.input_index = i;
    out.name = candidates[i].name;
    out.location = std::string(e.candidate.location);
    out.region = std::string(e.candidate.region);
    out.feasible = e.failure == Failure::kFeasible;
    out.score = out.feasible ? e.score : 0;
    if (!origins.empty() && out.feasible) out.latency = absl::Milliseconds(e.latency_ms);
    if (e.carbon->has_carbon) out.grams_per_kwh = e.carbon->grams;
    out.carbon_basis = BasisText(e, window);
    if (!out.feasible || !e.carbon->has_carbon)
      out.reasons = Reasons(index.model(), origins, e, window);
  }
  // Sort indices, then move once: the entries are large.
  std::vector<std::size_t> order(scored.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const ScoredCandidate& a = scored[x];
    const ScoredCandidate& b = scored[y];
    if (a.feasible != b.feasible) return a.feasible;
    if (a.feasible && a.score != b.score) return a.score > b.score;
    // Among equal scores, one with a carbon value before one scored as the
    // dirtiest for want of data.
    if (a.grams_per_kwh.has_value() != b.grams_per_kwh.has_value()) {
      return a.grams_per_kwh.has_value();
    }
    return a.name < b.name;
  });
  std::vector<ScoredCandidate> sorted;
  sorted.reserve(scored.size());
  for (std::size_t i : order) sorted.push_back(std::move(scored[i]));
  return sorted;
}

std::vector<ScoredCandidate> ScoreCandidates(const PlacementModel& model,
                                             const std::vector<Candidate>& candidates,
                                             const Workload& workload,
                                             const ScoringOptions& options) {
  return ScoreCandidates(ScoringIndex(model), candidates, workload, options);
}

CompactScores ScoreCompact(const ScoringIndex& index, const std::vector<Candidate>& candidates,
                           const Workload& workload, const ScoringOptions& options,
                           FailureDetail detail) {
  std::vector<Origin> origins = OriginsOf(index, workload);
  const Window* window = WindowFor(workload);
  CarbonMemo memo;
  const std::vector<Evaluation> evaluations =
      Evaluate(index, candidates, origins, window, workload, options, memo);
  CompactScores out;
  out.extender_scores.resize(evaluations.size());
  const Evaluation* best = nullptr;
  for (std::size_t i = 0; i < evaluations.size(); ++i) {
    const Evaluation& e = evaluations[i];
    if (e.failure != Failure::kFeasible) {
      if (detail == FailureDetail::kScoresOnly) continue;
      std::string reason;
      for (const std::string& r : Reasons(index.model(), origins, e, window)) {
        absl::StrAppend(&reason, reason.empty() ? "" : "; ", r);
      }
      out.failures.emplace_back(i, std::move(reason));
      continue;
    }
    out.extender_scores[i] = static_cast<uint8_t>(std::llround(e.score * 10));
    if (best == nullptr || e.score > best->score ||
        (e.score == best->score && e.candidate.name < best->candidate.name)) {
      out.best = i;
      best = &e;
    }
  }
  if (best != nullptr) out.best_location = std::string(best->candidate.location);
  return out;
}

CompactScores ScoreCompact(const PlacementModel& model, const std::vector<Candidate>& candidates,
                           const Workload& workload, const ScoringOptions& options,
                           FailureDetail detail) {
  return ScoreCompact(ScoringIndex(model), candidates, workload, options, detail);
}

int64_t ExtenderScore(const ScoredCandidate& candidate) {
  return candidate.feasible ? std::llround(candidate.score * 10) : 0;
}

int64_t FrameworkScore(const ScoredCandidate& candidate) {
  return candidate.feasible ? std::llround(candidate.score * 100) : 0;
}

}  // namespace carbonroute::scheduler_lite
