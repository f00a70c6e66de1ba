// File: scheduler-lite/ranking_output.h
//
// Renders a Ranking for people (aligned table) or programs (JSON).
//
// JSON shape:
//   {"ranked": [{"rank": 1, "location": "SE-SE3", "grams_per_kwh": 24.1,
//                "provider": "replay", "emissions_type": "average",
//                "estimated": false, "valid_to": "2026-11-22T02:00:00Z",
//                "source": "http://127.0.0.1:9464/metrics"}, ...],
//    "excluded": [{"location": "XX", "reason": "no current reading"}]}
// "valid_to" is null when the collector did not export it.
#ifndef CARBONROUTE_SCHEDULER_LITE_RANKING_OUTPUT_H_
#define CARBONROUTE_SCHEDULER_LITE_RANKING_OUTPUT_H_

#include <string>

#include "scheduler-lite/intensity_ranking.h"

namespace carbonroute::scheduler_lite {

std::string RankingTable(const Ranking& ranking);
std::string RankingJson(const Ranking& ranking);

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_RANKING_OUTPUT_H_
