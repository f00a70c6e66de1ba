// File: scheduler-lite/intensity_ranking.h
//
// Ranks grid locations by their current carbon intensity (gCO2eq/kWh),
// cleanest first. Latency-aware scoring (DESIGN.md "Scoring") builds on this
// in a later module; this is the carbon-only ranking of `scheduler-lite rank`.
//
// Rules:
//   - One row per series (location, provider, emissions_type); the same series
//     scraped from several collectors counts once (the latest valid_to wins).
//   - Order: ascending gCO2eq/kWh; ties by location, then provider, then
//     emissions_type, so the output is deterministic. rank = position (1-based).
//   - Stale data: a reading whose valid_to is before `now` is excluded with the
//     reason "expired at <time>" — never ranked, never treated as 0.
//   - A requested location with no reading is excluded with "no current reading".
//
// Thread safety: pure function.
#ifndef CARBONROUTE_SCHEDULER_LITE_INTENSITY_RANKING_H_
#define CARBONROUTE_SCHEDULER_LITE_INTENSITY_RANKING_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "scheduler-lite/metrics_source.h"

namespace carbonroute::scheduler_lite {

struct RankOptions {
  std::vector<std::string> locations = {};  // only these (all when empty)
  std::string emissions_type = {};          // "average", "marginal", or "" for both
  absl::Time now = absl::UnixEpoch();
};

struct RankedLocation {
  int rank = 0;
  IntensityObservation reading;
};

struct Exclusion {
  std::string location;
  std::string reason;
};

struct Ranking {
  std::vector<RankedLocation> ranked;
  std::vector<Exclusion> excluded;
};

Ranking RankByIntensity(const std::vector<IntensityObservation>& observations,
                        const RankOptions& options);

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_INTENSITY_RANKING_H_
