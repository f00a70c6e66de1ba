// File: placement/scoring.h
//
// Carbon- and latency-aware scoring of candidates (nodes, regions or
// clusters), as stated in docs/architecture.md "Scoring" and the README.
//
// 1. Hard filters. For each latency limit (from, max): the candidate's RTT
//    from `from` must be known and ≤ max. RTT lookup, first hit wins:
//    the candidate itself (0), a row entry from → candidate (measured or
//    declared), then — for a node and a candidate node whose zones are known
//    (a sampled probe mesh lists only a few peers per zone) — the zone
//    pair's measured RTT: the median of `from`'s own measured entries to
//    nodes of the candidate's zone, else PlacementModel::zone_rtt; then the
//    static matrix between their regions, then — for two
//    places in the same region — kSameRegionRtt (5 ms, the convention of the
//    source study of data/gcp-inter-region-latency-ms.csv), or the region's
//    RTT to its nearest neighbour in the matrix if that is smaller. A region
//    given as the origin is such a place too (a region-named candidate gets
//    the same-region RTT, as a node in that region does; only a node is 0 ms
//    from itself). No entry means
//    "no measurement" (never 0 ms): the candidate is excluded with the reason
//    "no RTT from X to Y" — fail closed, a limit that cannot be verified is
//    not met. An unknown `from` (neither a node, a region, nor a row source in
//    the model) excludes every candidate with that reason.
// 2. Carbon value c per surviving candidate, gCO2eq/kWh: the forecast mean
//    over the workload's expected runtime when given (the smallest exported
//    window ≥ runtime among 1h/4h/24h, or 24h when the runtime is longer),
//    else the current reading. Stale data policy: a reading whose valid_to is
//    more than `stale_after` in the past, or a location with no reading, has
//    no carbon value: the candidate stays feasible, is scored as the dirtiest
//    (normalised carbon 1), and the reason says so — never 0 gCO2.
//    Latency value l: the largest RTT over the workload's origins (0 without origins).
// 3. Scores. Inside the user's hard limits latency decides only between
//    candidates whose carbon is close:
//    - the effective carbon value e = c + p, p the location's capacity price
//      (ScoringOptions::capacity_price, gCO2eq/kWh; 0 when not given: `serve`
//      and `rank` never give one, the simulator gives the dual prices of its
//      forecast's min-cost flow, simulator/carbonroute_placer.h);
//    - the band: the candidates with e ≤ e_min + τ, τ = carbon_tolerance
//      (gCO2eq/kWh, default 0: only equally clean candidates); never one
//      without a carbon value; with w_c = 0 (carbon ignored), all of them;
//    - λ = w_l / (w_c + w_l), the share of the scale latency orders inside the
//      band (w_l counts only when the workload has latency limits, else λ = 0);
//    - in the band: score = 1 − λ·l̂, l̂ = (l − l_min) / (l_max − l_min) over
//      the band (the nearest scores 1, the farthest 1 − λ);
//    - outside it: score = (1 − λ)·(1 − ĉ), ĉ = (e − e_min − τ) / (e_max − e_min − τ)
//      (min–max over what lies beyond the band, GreenCourier's normalisation:
//      thandayuthapani/GreenCourier, carbon.go, with its max == min division
//      by zero removed; all-equal → 0); no carbon value → ĉ = 1, score 0.
//    So every candidate of the band ranks before every one outside it, carbon
//    alone orders those outside, and latency orders the band. Weights default
//    to w_c = 1, w_l = 0.2 (λ = 1/6: the extender's 0–10 scale gives the band
//    10 down to 8, the rest 8 down to 0). The default τ = 0 leaves no carbon on
//    the table: on the shipped year the simulator's carbonroute policy reaches
//    the oracle's saving where capacity is plentiful (README "How much would
//    it save?"); a user who prefers nearer sites sets τ, for example 20: a
//    site up to 20 gCO2eq/kWh dirtier than the cleanest wins when it is nearer.
// 4. Order: score descending, then candidates with a carbon value before those
//    without (scored as the dirtiest), then the lower latency, then name
//    ascending (deterministic ties). So with w_l = 0 the nearest of the band
//    still ranks first. Ranges: ExtenderScore() 0–10 (MaxExtenderPriority),
//    FrameworkScore() 0–100.
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_PLACEMENT_SCORING_H_
#define CARBONROUTE_PLACEMENT_SCORING_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "contract/forecast_windows.h"
#include "placement/placement_model.h"

namespace carbonroute::placement {

inline constexpr absl::Duration kSameRegionRtt = absl::Milliseconds(5);

struct Candidate {
  std::string name;      // node, region or cluster name
  std::string location;  // grid location ("" → resolved from the model: node, then region)
  std::string region;    // cloud region ("" → from the model)
};

struct Workload {
  std::map<std::string, absl::Duration> max_rtt;  // origin (node or region) → the largest RTT
  std::optional<absl::Duration> expected_runtime;
};

// The default weights w_c and w_l (see the formula above); every caller that
// takes weights (serve, rank, simulate) defaults to these.
inline constexpr double kDefaultCarbonWeight = 1.0;
inline constexpr double kDefaultLatencyWeight = 0.2;
// The default carbon tolerance τ, gCO2eq/kWh (rule 3).
inline constexpr double kDefaultCarbonTolerance = 0.0;

struct ScoringOptions {
  double carbon_weight = kDefaultCarbonWeight;
  double latency_weight = kDefaultLatencyWeight;
  double carbon_tolerance = kDefaultCarbonTolerance;  // τ, gCO2eq/kWh, ≥ 0
  // Per PlacementModel::LocationId, gCO2eq/kWh added to the location's carbon
  // value (rule 3); borrowed, may be null; ids past its end have price 0.
  const std::vector<double>* capacity_price = nullptr;
  absl::Duration stale_after = absl::Minutes(30);  // beyond valid_to
  absl::Time now;
};

struct ScoredCandidate {
  std::size_t input_index = 0;  // position in the `candidates` given to ScoreCandidates
  std::string name;
  std::string location;
  std::string region;
  bool feasible = false;
  std::optional<double> grams_per_kwh;  // the carbon value used (absent: no usable data)
  std::string carbon_basis;             // "current", "forecast 4h", or why there is none
  // The largest RTT over the origins (for an excluded candidate too, when
  // every origin's RTT to it is known).
  std::optional<absl::Duration> latency;
  double score = 0;                  // [0, 1]; 0 when not feasible
  std::vector<std::string> reasons;  // why excluded, and what was assumed
};

// Scores `candidates` and orders them (feasible first, by the order above;
// then the excluded ones by name). ScoredCandidate::input_index maps back.
// Every origin is looked up for every candidate, once; the reasons are
// written from those lookups (value and provenance), never from a second one.
std::vector<ScoredCandidate> ScoreCandidates(const PlacementModel& model,
                                             const std::vector<Candidate>& candidates,
                                             const Workload& workload,
                                             const ScoringOptions& options);

// The scoring core's answer for the extender, compact and in input order: the
// same filters and scores as ScoreCandidates, without the per-candidate text
// (reasons are written only for excluded candidates).
struct CompactScores {
  std::vector<uint8_t> extender_scores;  // 0–10 per input candidate (0 if excluded)
  std::vector<std::pair<std::size_t, std::string>> failures;  // input index → "reason; reason"
  std::optional<std::size_t> best;  // input index of the top-scored feasible one
  std::string best_location;
};
// kScoresOnly leaves CompactScores::failures empty (prioritize answers only scores).
enum class FailureDetail { kReasons, kScoresOnly };
CompactScores ScoreCompact(const PlacementModel& model, const std::vector<Candidate>& candidates,
                           const Workload& workload, const ScoringOptions& options,
                           FailureDetail detail = FailureDetail::kReasons);

// The grid location the scoring resolves `candidate` to (its own, the
// node's, a region-named candidate's, the region's): its name, "" when none
// is known; its PlacementModel::LocationId, kNone when none is known.
std::string ResolvedLocation(const PlacementModel& model, const Candidate& candidate);
uint32_t ResolvedLocationId(const PlacementModel& model, const Candidate& candidate);

// The forecast window whose mean scores a workload of this expected runtime
// (rule 2 above): the smallest of kForecastWindows ≥ runtime, else the
// longest; nullptr without a runtime (the current reading scores).
const ForecastWindow* ForecastWindowFor(std::optional<absl::Duration> runtime);

// round(score × 10), 0 when not feasible.
int64_t ExtenderScore(const ScoredCandidate& candidate);
// round(score × 100), 0 when not feasible.
int64_t FrameworkScore(const ScoredCandidate& candidate);

}  // namespace carbonroute::placement

#endif  // CARBONROUTE_PLACEMENT_SCORING_H_
