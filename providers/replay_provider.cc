#include "providers/replay_provider.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/usage.h"

namespace carbonroute::providers {
namespace {

absl::Time HourStart(absl::Time t) {
  return absl::FromCivil(absl::ToCivilHour(t, absl::UTCTimeZone()), absl::UTCTimeZone());
}

}  // namespace

absl::StatusOr<std::unique_ptr<ReplayProvider>> ReplayProvider::Create(
    std::string name, std::shared_ptr<const IntensityTrace> trace,
    const std::vector<std::string>& locations) {
  std::vector<std::string> resolved;
  if (locations.size() == 1 && locations[0] == "*") {
    resolved = trace->zones();
  } else {
    // Every location the trace lacks, each with the zone it was likely meant to be.
    std::vector<std::string> unknown;
    for (const std::string& zone : locations) {
      if (!trace->ZoneIndex(zone)) {
        // Zone codes are short: two edits turn any code of two letters into another.
        std::string closest = ClosestMatch(zone, trace->zones());
        if (EditDistance(zone, closest) > std::max<std::size_t>(1, zone.size() / 3)) {
          closest.clear();
        }
        unknown.push_back(
            absl::StrCat("\"", zone, "\"",
                         closest.empty() ? "" : absl::StrCat(" (did you mean ", closest, "?)")));
      }
      resolved.push_back(zone);
    }
    if (!unknown.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "provider \"", name, "\": ", unknown.size() == 1 ? "location " : "locations ",
          absl::StrJoin(unknown, ", "), unknown.size() == 1 ? " is not a zone" : " are not zones",
          " of the replay trace"));
    }
  }
  return std::unique_ptr<ReplayProvider>(
      new ReplayProvider(std::move(name), std::move(trace), std::move(resolved)));
}

absl::StatusOr<Reading> ReplayProvider::ReadingForHour(absl::string_view location, std::size_t zone,
                                                       absl::Time hour_start) const {
  std::optional<double> value = trace_->Value(zone, trace_->TraceHour(hour_start));
  if (!value) {
    return absl::NotFoundError(absl::StrCat("provider \"", name_,
                                            "\": the trace has no value for \"", location, "\" at ",
                                            absl::FormatTime(hour_start)));
  }
  Reading reading;
  reading.kind = ValueKind::kGramsPerKwh;
  reading.value = *value;
  reading.valid_from = hour_start;
  reading.valid_to = hour_start + absl::Hours(1);
  return reading;
}

absl::StatusOr<std::size_t> ReplayProvider::ZoneOf(absl::string_view location) const {
  std::optional<std::size_t> zone = trace_->ZoneIndex(location);
  if (!zone) {
    return absl::NotFoundError(
        absl::StrCat("provider \"", name_, "\": unknown location \"", location, "\""));
  }
  return *zone;
}

absl::StatusOr<Reading> ReplayProvider::Current(absl::string_view location, absl::Time now) {
  absl::StatusOr<std::size_t> zone = ZoneOf(location);
  if (!zone.ok()) return zone.status();
  return ReadingForHour(location, *zone, HourStart(now));
}

absl::StatusOr<std::vector<Reading>> ReplayProvider::Forecast(absl::string_view location,
                                                              absl::Time now,
                                                              absl::Duration horizon) {
  absl::StatusOr<std::size_t> zone = ZoneOf(location);
  if (!zone.ok()) return zone.status();
  std::vector<Reading> points;
  for (absl::Time hour = HourStart(now); hour < now + horizon || points.empty();
       hour += absl::Hours(1)) {
    absl::StatusOr<Reading> point = ReadingForHour(location, *zone, hour);
    if (!point.ok()) break;  // a gap ends the forecast early
    points.push_back(*std::move(point));
  }
  return points;
}

}  // namespace carbonroute::providers
