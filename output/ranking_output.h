// File: output/ranking_output.h
//
// Renders scored candidates for people (aligned table) or programs (JSON).
//
// JSON shape:
//   {"candidates": [{"rank": 1, "name": "europe-west1", "location": "BE", "region": "europe-west1",
//                    "feasible": true, "score": 100, "grams_per_kwh": 76.96,
//                    "carbon_basis": "current", "rtt_ms": 7.0, "reasons": []}, ...]}
// "score" is 0–100; "grams_per_kwh" and "rtt_ms" are null when unknown / not asked.
#ifndef CARBONROUTE_OUTPUT_RANKING_OUTPUT_H_
#define CARBONROUTE_OUTPUT_RANKING_OUTPUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "placement/scoring.h"

namespace carbonroute::scheduler_lite {

// The feasible candidates ranked, each with its notes, then the excluded ones
// with their reasons: at most `max_excluded` of them, then one line saying how
// many more there are (the JSON lists every one).
std::string RankingTable(const std::vector<placement::ScoredCandidate>& scored,
                         std::size_t max_excluded = SIZE_MAX);
std::string RankingJson(const std::vector<placement::ScoredCandidate>& scored);
// Everything known about one candidate and why it scored as it did. `kind`
// ("node", "region", "location") heads it; a location's `members` (the
// regions and nodes it stands for) replace the location and region lines.
std::string Explanation(const std::vector<placement::ScoredCandidate>& scored,
                        const std::string& name, const std::string& kind,
                        const placement::PlacementModel::LocationMembers* members = nullptr);

// The same as JSON (`explain --format json`): name, kind, location, region,
// grams_per_kwh, carbon_basis, rtt_ms, feasible, rank (null when excluded),
// of (the feasible count), score, extender_score, reasons; a location's
// regions and nodes.
std::string ExplanationJson(const std::vector<placement::ScoredCandidate>& scored,
                            const std::string& name, const std::string& kind,
                            const placement::PlacementModel::LocationMembers* members = nullptr);

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_OUTPUT_RANKING_OUTPUT_H_
