#include "scheduler-lite/ranking_output.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace carbonroute::scheduler_lite {
namespace {

constexpr char kTimeFormat[] = "%Y-%m-%dT%H:%M:%SZ";

std::string ValidTo(const IntensityObservation& o) {
  return o.valid_to ? absl::FormatTime(kTimeFormat, *o.valid_to, absl::UTCTimeZone()) : "-";
}

}  // namespace

std::string RankingTable(const Ranking& ranking) {
  std::size_t location_width = 8, provider_width = 8;
  for (const RankedLocation& row : ranking.ranked) {
    location_width = std::max(location_width, row.reading.location.size());
    provider_width = std::max(provider_width, row.reading.provider.size());
  }
  const int lw = static_cast<int>(location_width), pw = static_cast<int>(provider_width);
  std::string out = absl::StrFormat("%4s  %-*s  %10s  %-*s  %-8s  %-9s  %s\n", "rank", lw,
                                    "location", "gCO2eq/kWh", pw, "provider", "type", "estimated",
                                    "valid until (UTC)");
  for (const RankedLocation& row : ranking.ranked) {
    const IntensityObservation& o = row.reading;
    absl::StrAppendFormat(&out, "%4d  %-*s  %10.2f  %-*s  %-8s  %-9s  %s\n", row.rank, lw,
                          o.location, o.grams_per_kwh, pw, o.provider, o.emissions_type,
                          o.estimated ? "yes" : "no", ValidTo(o));
  }
  for (const Exclusion& excluded : ranking.excluded) {
    absl::StrAppend(&out, "not ranked: ", excluded.location, " (", excluded.reason, ")\n");
  }
  return out;
}

std::string RankingJson(const Ranking& ranking) {
  nlohmann::json ranked = nlohmann::json::array();
  for (const RankedLocation& row : ranking.ranked) {
    const IntensityObservation& o = row.reading;
    ranked.push_back({{"rank", row.rank},
                      {"location", o.location},
                      {"grams_per_kwh", o.grams_per_kwh},
                      {"provider", o.provider},
                      {"emissions_type", o.emissions_type},
                      {"estimated", o.estimated},
                      {"valid_to", o.valid_to ? nlohmann::json(ValidTo(o)) : nlohmann::json(nullptr)},
                      {"source", o.source}});
  }
  nlohmann::json excluded = nlohmann::json::array();
  for (const Exclusion& e : ranking.excluded) {
    excluded.push_back({{"location", e.location}, {"reason", e.reason}});
  }
  return nlohmann::json{{"ranked", ranked}, {"excluded", excluded}}.dump(2) + "\n";
}

}  // namespace carbonroute::scheduler_lite
