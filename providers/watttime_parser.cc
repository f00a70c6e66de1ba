#include "providers/watttime_parser.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "providers/json_fields.h"

namespace carbonroute::providers {

absl::StatusOr<WattTimeSignal> ParseWattTimeSignal(absl::string_view body,
                                                   absl::string_view location) {
  const std::string what = absl::StrCat("watttime ", location);
  CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::element root, json::Parse(body, what));
  CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::element meta, json::Field(root, "meta", what));
  const std::string meta_what = absl::StrCat(what, " meta");
  WattTimeSignal signal;
  CARBONROUTE_ASSIGN_OR_RETURN(signal.units, json::String(meta, "units", meta_what));
  ValueKind kind = ValueKind::kGramsPerKwh;
  double factor = 1;
  if (signal.units == "lbs_co2_per_mwh") {
    factor = kGramsPerKwhPerLbsPerMwh;
  } else if (signal.units == "percentile") {
    kind = ValueKind::kPercentile;
  } else {
    return json::FieldError(what, "meta.units",
                            absl::StrCat("\"", signal.units,
                                         "\" is not a unit carbonroute converts (expected "
                                         "lbs_co2_per_mwh or percentile)"));
  }
  CARBONROUTE_ASSIGN_OR_RETURN(std::optional<double> period_seconds,
                               json::NullableNumber(meta, "data_point_period_seconds", meta_what));
  if (!period_seconds || *period_seconds <= 0) {
    return json::FieldError(what, "meta.data_point_period_seconds", "must be a positive number");
  }
  const absl::Duration period = absl::Seconds(*period_seconds);
  if (json::Field(meta, "generated_at", meta_what).ok()) {
    CARBONROUTE_ASSIGN_OR_RETURN(absl::Time generated_at,
                                 json::Time(meta, "generated_at", meta_what));
    signal.generated_at = generated_at;
  }
  CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::element data, json::Field(root, "data", what));
  simdjson::dom::array points;
  if (data.get_array().get(points)) return json::FieldError(what, "data", "expected an array");
  signal.points.reserve(points.size());
  for (simdjson::dom::element point : points) {
    CARBONROUTE_ASSIGN_OR_RETURN(absl::Time point_time, json::Time(point, "point_time", what));
    CARBONROUTE_ASSIGN_OR_RETURN(std::optional<double> value,
                                 json::NullableNumber(point, "value", what));
    if (!value) continue;
    Reading reading;
    reading.kind = kind;
    reading.value = *value * factor;
    reading.valid_from = point_time;
    reading.valid_to = point_time + period;
    reading.source_units = signal.units;
    signal.points.push_back(std::move(reading));
  }
  if (signal.points.empty()) {
    return absl::UnavailableError(absl::StrCat(what, ": the response has no data points"));
  }
  return signal;
}

absl::StatusOr<std::string> ParseWattTimeToken(absl::string_view body) {
  CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::element root, json::Parse(body, "watttime login"));
  return json::String(root, "token", "watttime login");
}

absl::StatusOr<std::string> ParseWattTimeRegion(absl::string_view body) {
  CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::element root,
                               json::Parse(body, "watttime region-from-loc"));
  return json::String(root, "region", "watttime region-from-loc");
}

absl::StatusOr<std::vector<WattTimeAccess>> ParseWattTimeAccess(absl::string_view body,
                                                                absl::string_view signal_type) {
  constexpr char kWhat[] = "watttime my-access";
  CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::element root, json::Parse(body, kWhat));
  simdjson::dom::array signals;
  if (root["signal_types"].get_array().get(signals)) {
    return json::FieldError(kWhat, "signal_types", "expected an array");
  }
  std::vector<WattTimeAccess> access;
  for (simdjson::dom::element signal : signals) {
    CARBONROUTE_ASSIGN_OR_RETURN(std::string name, json::String(signal, "signal_type", kWhat));
    if (name != signal_type) continue;
    simdjson::dom::array regions;
    if (signal["regions"].get_array().get(regions)) continue;
    for (simdjson::dom::element region : regions) {
      WattTimeAccess entry;
      CARBONROUTE_ASSIGN_OR_RETURN(entry.region, json::String(region, "region", kWhat));
      simdjson::dom::array endpoints;
      if (!region["endpoints"].get_array().get(endpoints)) {
        for (simdjson::dom::element endpoint : endpoints) {
          absl::StatusOr<std::string> path = json::String(endpoint, "endpoint", kWhat);
          if (path.ok()) entry.endpoints.push_back(*path);
        }
      }
      access.push_back(std::move(entry));
    }
  }
  return access;
}

}  // namespace carbonroute::providers
