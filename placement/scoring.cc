#include "placement/scoring.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/median.h"
#include "base/utc_time.h"
#include "contract/forecast_windows.h"

namespace carbonroute::placement {
namespace {

using Window = ForecastWindow;

// A candidate with its location and region resolved from the model (views into
// the input or the model, which outlive the scoring call).
struct Resolved {
  absl::string_view name, location, region;
};

// A failing pair (its probes time out: an infinite RTT) is said as such.
std::string Ms(double ms) {
  return std::isinf(ms) ? std::string("unreachable (its probes fail)")
                        : absl::StrFormat("%.2f ms", ms);
}

constexpr uint32_t kNoId = PlacementModel::kNone;

// Where an RTT came from: the one lookup (LookupRtt) says, and the reasons'
// text is written from it.
enum class RttSource : uint8_t {
  kSameNode,        // the candidate is the origin node: 0
  kRow,             // the origin's row lists the candidate (measured or declared)
  kOwnZoneMedian,   // the median of the origin's measured entries to the candidate's zone
  kZonePairMedian,  // the zone pair's measured median (PlacementFacts::zone_rtt)
  kRegion,          // the static matrix between their regions
  kSameRegion,      // one region: kSameRegionRtt or the region's nearest neighbour
};

struct FoundRtt {
  double ms = 0;
  RttSource source = RttSource::kRow;
  RttMethod method = RttMethod::kMeasured;  // for kRow and kRegion
  // kRow: the row and the target place, to name the entry's exporter in reasons.
  uint32_t row = UINT32_MAX, target = UINT32_MAX;
};

std::string ProvenanceText(const PlacementModel& model, const FoundRtt& rtt) {
  switch (rtt.source) {
    case RttSource::kSameNode:
      return "same node";
    case RttSource::kRow:
      if (rtt.row != UINT32_MAX) {
        const RttEntry* entry = model.FindEntry(rtt.row, rtt.target);
        if (entry != nullptr && entry->exporter != RttExporter::kCarbonroute) {
          return absl::StrCat(RttMethodName(rtt.method), " by ", RttExporterName(entry->exporter),
                              ": ", RttExporterCaveat(entry->exporter));
        }
      }
      return std::string(RttMethodName(rtt.method));
    case RttSource::kRegion:
      return std::string(RttMethodName(rtt.method));
    case RttSource::kOwnZoneMedian:
      return "measured: median of its row to the zone";
    case RttSource::kZonePairMedian:
      return "measured: zone-pair median";
    case RttSource::kSameRegion:
      return "declared: same region";
  }
  return "";
}

// A cache slot of one origin's lookups: not yet looked up, none, or found.
struct CachedRtt {
  bool looked_up = false;
  std::optional<FoundRtt> rtt;
};

// The latency origins of a workload, resolved once per request, with the
// lookups' per-request caches (by candidate region, by candidate zone).
struct Origin {
  const std::string* from;
  double limit_ms;
  bool known;                // a node, a region, or an RTT row source of the model
  bool is_region;            // a region, not a node: a candidate of that name is "same region"
  absl::string_view region;  // the origin's region (its own name for a region)
  uint32_t row;              // the origin's RTT row id, or kNoId
  const PlacementModel::DenseRow* dense;  // that row by place id
  uint32_t zone;                          // the origin node's zone id, or kNoId
  std::vector<CachedRtt> by_region;       // by candidate region id
  absl::flat_hash_map<uint32_t, CachedRtt> by_zone;
};

// RTT between two regions: the static matrix, else the same-region convention.
std::optional<FoundRtt> RegionRtt(const PlacementModel& model, absl::string_view from_region,
                                  absl::string_view to_region) {
  if (from_region.empty() || to_region.empty()) return std::nullopt;
  const uint32_t row = model.RowId(from_region);
  const uint32_t target = model.PlaceId(to_region);
  if (row != kNoId && target != kNoId) {
    if (const RttEntry* entry = model.FindEntry(row, target)) {
      return FoundRtt{absl::ToDoubleMilliseconds(entry->rtt), RttSource::kRegion, entry->method};
    }
  }
  if (from_region != to_region) return std::nullopt;
  // Two places in one region are never farther apart than the region is from
  // its nearest neighbour in the matrix.
  absl::Duration rtt = kSameRegionRtt;
  if (row != kNoId) {
    for (const PlacementModel::RowEntry& e : model.RowEntries(row)) {
      if (e.target != target && model.place(e.target).is_region) rtt = std::min(rtt, e.entry.rtt);
    }
  }
  return FoundRtt{absl::ToDoubleMilliseconds(rtt), RttSource::kSameRegion, RttMethod::kDeclared};
}

// RTT from the origin node to a node of `to_zone` that its row does not list
// (a sampled probe mesh): the median of the origin's own measured entries to
// that zone, else the model's zone-pair RTT.
std::optional<FoundRtt> ZoneRtt(const PlacementModel& model, const Origin& origin,
                                uint32_t to_zone) {
  if (origin.row != kNoId) {
    std::vector<absl::Duration> own;
    for (const PlacementModel::RowEntry& e : model.RowEntries(origin.row)) {
      if (e.entry.method == RttMethod::kMeasured && model.place(e.target).zone == to_zone) {
        own.push_back(e.entry.rtt);
      }
    }
    if (!own.empty()) {
      return FoundRtt{absl::ToDoubleMilliseconds(Median(own)), RttSource::kOwnZoneMedian};
    }
  }
  if (std::optional<absl::Duration> pair = model.ZonePairRtt(origin.zone, to_zone)) {
    return FoundRtt{absl::ToDoubleMilliseconds(*pair), RttSource::kZonePairMedian};
  }
  return std::nullopt;
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
  uint32_t place = kNoId, location_id = kNoId, region_id = kNoId;  // PlacementModel ids
  double latency_ms = 0;  // the largest RTT over the origins
  double effective = 0;   // carbon value + capacity price, gCO2eq/kWh (when it has carbon)
  double score = 0;
  bool in_band = false;  // within the carbon tolerance of the cleanest
  const CarbonValue* carbon = nullptr;
  Failure failure = Failure::kFeasible;  // the first failing origin's
};

// The candidate's location and region, through the model's ids: the input's
// own location/region first, then the node's, then a region-named candidate,
// then the region's grid location.
void ResolveInto(const PlacementModel& model, const Candidate& input, Evaluation& e) {
  Resolved& r = e.candidate;
  r = {input.name, input.location, input.region};
  e.place = model.PlaceId(r.name);
  e.location_id = r.location.empty() ? kNoId : model.LocationId(r.location);
  e.region_id = r.region.empty() ? kNoId : model.RegionId(r.region);
  // A location written as a cloud region ("asia-northeast1", as rank, window
  // and the SDK API take them) is that region, for RTT as for carbon.
  if (r.region.empty() && !r.location.empty()) {
    if (const uint32_t region = model.RegionId(r.location); region != kNoId) {
      e.region_id = region;
      r.region = r.location;
      if (const uint32_t location = model.RegionLocation(region); location != kNoId) {
        e.location_id = location;
        r.location = model.location(location);
      }
    }
  }
  if (e.place != kNoId) {
    const PlacementModel::Place& place = model.place(e.place);
    if (place.is_node) {
      if (r.location.empty() && place.location != kNoId) {
        e.location_id = place.location;
        r.location = model.location(place.location);
      }
      if (r.region.empty() && place.region != kNoId) {
        e.region_id = place.region;
        r.region = model.region(place.region);
      }
    }
    if (r.region.empty() && r.location.empty() && place.is_region) {
      r.region = r.name;
      e.region_id = model.RegionId(r.name);
    }
  }
  if (r.location.empty() && e.region_id != kNoId) {
    if (const uint32_t location = model.RegionLocation(e.region_id); location != kNoId) {
      e.location_id = location;
      r.location = model.location(location);
    }
  }
}

// The one RTT lookup of the header, first hit wins, with its provenance:
// the candidate itself, the origin's row, the zone pair, the regions.
std::optional<FoundRtt> LookupRtt(const PlacementModel& model, Origin& origin,
                                  const Evaluation& e) {
  if (*origin.from == e.candidate.name && !origin.is_region) {
    return FoundRtt{0.0, RttSource::kSameNode};
  }
  if (origin.dense != nullptr && e.place != kNoId) {
    if (const double ms = origin.dense->ms[e.place]; !std::isnan(ms)) {
      return FoundRtt{ms, RttSource::kRow, origin.dense->method[e.place], origin.row, e.place};
    }
  }
  if (origin.zone != kNoId && e.place != kNoId) {
    if (const uint32_t zone = model.place(e.place).zone; zone != kNoId) {
      CachedRtt& cached = origin.by_zone[zone];
      if (!cached.looked_up) cached = {true, ZoneRtt(model, origin, zone)};
      if (cached.rtt) return cached.rtt;
    }
  }
  if (e.region_id == kNoId) return RegionRtt(model, origin.region, e.candidate.region);
  CachedRtt& cached = origin.by_region[e.region_id];
  if (!cached.looked_up) cached = {true, RegionRtt(model, origin.region, e.candidate.region)};
  return cached.rtt;
}

CarbonValue CarbonOf(const PlacementModel& model, absl::string_view location, const Window* window,
                     const ScoringOptions& options) {
  CarbonValue v;
  v.looked_up = true;
  const uint32_t id = location.empty() ? kNoId : model.LocationId(location);
  v.carbon = id == kNoId ? nullptr : model.Carbon(id);
  if (v.carbon == nullptr) {
    v.basis = location.empty() ? Basis::kNoLocation : Basis::kNoData;
    return v;
  }
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
      return absl::StrCat("carbon data for ", e.candidate.location, " is stale (valid until ",
                          UtcSeconds(*e.carbon->carbon->valid_to), ")");
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

const CarbonValue* CarbonFor(const PlacementModel& model, const Window* window,
                             const ScoringOptions& options, CarbonMemo& memo, const Evaluation& e) {
  if (e.location_id == kNoId) {
    if (e.candidate.location.empty()) return &memo.no_location;
    return &memo.unknown_location;
  }
  CarbonValue& value = memo.by_location[e.location_id];
  if (!value.looked_up) value = CarbonOf(model, model.location(e.location_id), window, options);
  return &value;
}

// One request's evaluation: per candidate, and per (candidate, origin) the
// RTT the lookup found (candidate-major). The reasons are written from these.
struct Evaluated {
  CarbonMemo memo;  // the evaluations point into it
  std::vector<Evaluation> evaluations;
  std::vector<std::optional<FoundRtt>> rtts;
  std::size_t origins = 0;

  const std::optional<FoundRtt>& Rtt(std::size_t candidate, std::size_t origin) const {
    return rtts[candidate * origins + origin];
  }
};

// The scoring core: hard filters, carbon and latency values, normalised scores.
void Evaluate(const PlacementModel& model, const std::vector<Candidate>& candidates,
              std::vector<Origin>& origins, const Window* window, const Workload& workload,
              const ScoringOptions& options, Evaluated& out) {
  CarbonMemo& memo = out.memo;
  memo.by_location.assign(model.location_count(), CarbonValue{});
  memo.no_location.basis = Basis::kNoLocation;
  memo.unknown_location.basis = Basis::kNoData;
  out.origins = origins.size();
  out.evaluations.resize(candidates.size());
  out.rtts.assign(candidates.size() * origins.size(), std::nullopt);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Evaluation& e = out.evaluations[i];
    ResolveInto(model, candidates[i], e);
    for (std::size_t o = 0; o < origins.size(); ++o) {
      Origin& origin = origins[o];
      Failure failure = Failure::kFeasible;
      if (!origin.known) {
        failure = Failure::kUnknownOrigin;
      } else if (std::optional<FoundRtt>& rtt = out.rtts[i * origins.size() + o] =
                     LookupRtt(model, origin, e);
                 !rtt) {
        failure = Failure::kNoRtt;
      } else if (rtt->ms > origin.limit_ms) {
        failure = Failure::kOverLimit;
      } else {
        e.latency_ms = std::max(e.latency_ms, rtt->ms);
      }
      if (e.failure == Failure::kFeasible) e.failure = failure;
    }
    e.carbon = CarbonFor(model, window, options, memo, e);
  }
  // The effective carbon value: the carbon value plus the location's capacity
  // price (ScoringOptions::capacity_price).
  const std::vector<double>* price = options.capacity_price;
  double c_min = INFINITY, c_max = -INFINITY;
  for (Evaluation& e : out.evaluations) {
    if (e.failure != Failure::kFeasible || !e.carbon->has_carbon) continue;
    e.effective = e.carbon->grams;
    if (price != nullptr && e.location_id < price->size()) e.effective += (*price)[e.location_id];
    c_min = std::min(c_min, e.effective);
    c_max = std::max(c_max, e.effective);
  }
  // The band: the candidates within the carbon tolerance of the cleanest
  // (all of them when carbon weighs 0; never one without a carbon value).
  const bool carbon_decides = options.carbon_weight > 0;
  const double band_top = c_min + std::max(options.carbon_tolerance, 0.0);
  double l_min = INFINITY, l_max = -INFINITY;
  for (Evaluation& e : out.evaluations) {
    if (e.failure != Failure::kFeasible) continue;
    e.in_band = !carbon_decides || (e.carbon->has_carbon && e.effective <= band_top);
    if (!e.in_band) continue;
    l_min = std::min(l_min, e.latency_ms);
    l_max = std::max(l_max, e.latency_ms);
  }
  // λ: the share of the scale latency orders inside the band; it counts only
  // when the workload has latency limits.
  const double latency_weight = workload.max_rtt.empty() ? 0.0 : options.latency_weight;
  const double weights = options.carbon_weight + latency_weight;
  const double lambda = weights > 0 ? latency_weight / weights : 0.0;
  for (Evaluation& e : out.evaluations) {
    if (e.failure != Failure::kFeasible) continue;
    if (e.in_band) {
      e.score = 1.0 - lambda * Normalised(e.latency_ms, l_min, l_max);
    } else {
      const double c_hat =
          e.carbon->has_carbon ? Normalised(e.effective, band_top, std::max(c_max, band_top)) : 1.0;
      e.score = (1.0 - lambda) * (1.0 - c_hat);
    }
  }
}

// Whether evaluation `a` ranks before `b` (both feasible): the order of
// rule 4 in scoring.h.
bool RanksBefore(const Evaluation& a, const Evaluation& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.carbon->has_carbon != b.carbon->has_carbon) return a.carbon->has_carbon;
  if (a.latency_ms != b.latency_ms) return a.latency_ms < b.latency_ms;
  return a.candidate.name < b.candidate.name;
}

// Every reason candidate `i` was excluded, or what was assumed about it,
// written from its evaluation (the slow path: text).
std::vector<std::string> Reasons(const PlacementModel& model, const std::vector<Origin>& origins,
                                 const Evaluated& evaluated, std::size_t i, const Window* window) {
  const Evaluation& e = evaluated.evaluations[i];
  std::vector<std::string> reasons;
  for (std::size_t o = 0; o < origins.size(); ++o) {
    const Origin& origin = origins[o];
    const std::optional<FoundRtt>& rtt = evaluated.Rtt(i, o);
    if (!origin.known) {
      reasons.push_back(absl::StrCat("unknown origin \"", *origin.from, "\" in the latency limit"));
    } else if (!rtt) {
      reasons.push_back(absl::StrCat("no RTT from ", *origin.from, " to ", e.candidate.name,
                                     ": the ", origin.limit_ms, " ms limit cannot be verified"));
    } else if (rtt->ms > origin.limit_ms) {
      reasons.push_back(absl::StrCat("RTT from ", *origin.from, " is ", Ms(rtt->ms), " (",
                                     ProvenanceText(model, *rtt), "), over the ", origin.limit_ms,
                                     " ms limit"));
    }
  }
  if (!e.carbon->has_carbon) reasons.push_back(BasisText(e, window) + ": scored as the dirtiest");
  return reasons;
}

std::vector<Origin> OriginsOf(const PlacementModel& model, const Workload& workload) {
  std::vector<Origin> origins;
  for (const auto& [from, limit] : workload.max_rtt) {
    // Compared per candidate, on the extender's hot path, with the RTTs the
    // lookups give in milliseconds: converted once per origin here.
    const double limit_ms = absl::ToDoubleMilliseconds(limit);
    const uint32_t place = model.PlaceId(from);
    const bool is_node = place != kNoId && model.place(place).is_node;
    const bool is_region = place != kNoId && model.place(place).is_region;
    const uint32_t row = model.RowId(from);
    absl::string_view region = from;  // a region (or a row source) is its own region
    uint32_t zone = kNoId;
    if (is_node) {
      const uint32_t region_id = model.place(place).region;
      region = region_id == kNoId ? absl::string_view() : model.region(region_id);
      zone = model.place(place).zone;
    }
    origins.push_back({&from,
                       limit_ms,
                       is_node || is_region || row != kNoId,
                       !is_node && is_region,
                       region,
                       row,
                       row == kNoId ? nullptr : &model.Dense(row),
                       zone,
                       std::vector<CachedRtt>(model.region_count()),
                       {}});
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

std::vector<ScoredCandidate> ScoreCandidates(const PlacementModel& model,
                                             const std::vector<Candidate>& candidates,
                                             const Workload& workload,
                                             const ScoringOptions& options) {
  std::vector<Origin> origins = OriginsOf(model, workload);
  const Window* window = WindowFor(workload);
  Evaluated evaluated;
  Evaluate(model, candidates, origins, window, workload, options, evaluated);
  const std::vector<Evaluation>& evaluations = evaluated.evaluations;
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
    if (!origins.empty() && out.feasible) {
      out.latency = absl::Milliseconds(e.latency_ms);
    } else if (!origins.empty()) {  // excluded: its RTT still says how far, when every one is known
      double worst_ms = 0;
      bool all_known = true;
      for (std::size_t o = 0; o < origins.size(); ++o) {
        const std::optional<FoundRtt>& rtt = evaluated.Rtt(i, o);
        all_known = all_known && rtt.has_value();
        if (rtt) worst_ms = std::max(worst_ms, rtt->ms);
      }
      if (all_known) out.latency = absl::Milliseconds(worst_ms);
    }
    if (e.carbon->has_carbon) out.grams_per_kwh = e.carbon->grams;
    out.carbon_basis = BasisText(e, window);
    if (!out.feasible || !e.carbon->has_carbon)
      out.reasons = Reasons(model, origins, evaluated, i, window);
  }
  // Sort indices, then move once: the entries are large.
  std::vector<std::size_t> order(scored.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const ScoredCandidate& a = scored[x];
    const ScoredCandidate& b = scored[y];
    if (a.feasible != b.feasible) return a.feasible;
    if (a.feasible) return RanksBefore(evaluations[x], evaluations[y]);
    return a.name < b.name;
  });
  std::vector<ScoredCandidate> sorted;
  sorted.reserve(scored.size());
  for (std::size_t i : order) sorted.push_back(std::move(scored[i]));
  return sorted;
}

CompactScores ScoreCompact(const PlacementModel& model, const std::vector<Candidate>& candidates,
                           const Workload& workload, const ScoringOptions& options,
                           FailureDetail detail) {
  std::vector<Origin> origins = OriginsOf(model, workload);
  const Window* window = WindowFor(workload);
  Evaluated evaluated;
  Evaluate(model, candidates, origins, window, workload, options, evaluated);
  const std::vector<Evaluation>& evaluations = evaluated.evaluations;
  CompactScores out;
  out.extender_scores.resize(evaluations.size());
  const Evaluation* best = nullptr;
  for (std::size_t i = 0; i < evaluations.size(); ++i) {
    const Evaluation& e = evaluations[i];
    if (e.failure != Failure::kFeasible) {
      if (detail == FailureDetail::kScoresOnly) continue;
      out.failures.emplace_back(i,
                                absl::StrJoin(Reasons(model, origins, evaluated, i, window), "; "));
      continue;
    }
    out.extender_scores[i] = static_cast<uint8_t>(std::llround(e.score * 10));
    if (best == nullptr || RanksBefore(e, *best)) {
      out.best = i;
      best = &e;
    }
  }
  if (best != nullptr) out.best_location = std::string(best->candidate.location);
  return out;
}

int64_t ExtenderScore(const ScoredCandidate& candidate) {
  return candidate.feasible ? std::llround(candidate.score * 10) : 0;
}

int64_t FrameworkScore(const ScoredCandidate& candidate) {
  return candidate.feasible ? std::llround(candidate.score * 100) : 0;
}

uint32_t ResolvedLocationId(const PlacementModel& model, const Candidate& candidate) {
  Evaluation e;
  ResolveInto(model, candidate, e);
  return e.location_id;
}

std::string ResolvedLocation(const PlacementModel& model, const Candidate& candidate) {
  const uint32_t id = ResolvedLocationId(model, candidate);
  return id == kNoId ? "" : std::string(model.location(id));
}

}  // namespace carbonroute::placement
