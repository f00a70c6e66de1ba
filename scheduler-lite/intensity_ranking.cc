#include "scheduler-lite/intensity_ranking.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace carbonroute::scheduler_lite {
namespace {

auto SeriesOf(const IntensityObservation& o) {
  return std::tie(o.location, o.provider, o.emissions_type);
}

}  // namespace

Ranking RankByIntensity(const std::vector<IntensityObservation>& observations,
                        const RankOptions& options) {
  const std::set<std::string> wanted(options.locations.begin(), options.locations.end());
  std::map<std::tuple<std::string, std::string, std::string>, IntensityObservation> series;
  Ranking ranking;
  std::set<std::string> seen_locations;
  for (const IntensityObservation& o : observations) {
    if (!wanted.empty() && !wanted.contains(o.location)) continue;
    if (!options.emissions_type.empty() && o.emissions_type != options.emissions_type) continue;
    seen_locations.insert(o.location);
    if (o.valid_to && *o.valid_to <= options.now) {
      ranking.excluded.push_back(
          {o.location, absl::StrCat(o.provider, " reading expired at ", absl::FormatTime(*o.valid_to))});
      continue;
    }
    auto [it, inserted] = series.emplace(SeriesOf(o), o);
    if (!inserted && o.valid_to.value_or(absl::InfinitePast()) >
                         it->second.valid_to.value_or(absl::InfinitePast())) {
      it->second = o;
    }
  }
  for (auto& [key, o] : series) ranking.ranked.push_back({0, o});
  std::sort(ranking.ranked.begin(), ranking.ranked.end(),
            [](const RankedLocation& a, const RankedLocation& b) {
              return std::forward_as_tuple(a.reading.grams_per_kwh, a.reading.location,
                                           a.reading.provider, a.reading.emissions_type) <
                     std::forward_as_tuple(b.reading.grams_per_kwh, b.reading.location,
                                           b.reading.provider, b.reading.emissions_type);
            });
  for (std::size_t i = 0; i < ranking.ranked.size(); ++i) ranking.ranked[i].rank = static_cast<int>(i) + 1;
  for (const std::string& location : wanted) {
    if (!seen_locations.contains(location)) ranking.excluded.push_back({location, "no current reading"});
  }
  return ranking;
}

}  // namespace carbonroute::scheduler_lite
