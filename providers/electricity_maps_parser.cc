#include "providers/electricity_maps_parser.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "providers/json_fields.h"

namespace carbonroute::providers {
namespace {

// `element`'s temporalGranularity, else `otherwise`.
absl::Duration Granularity(simdjson::dom::element element, absl::Duration otherwise) {
  std::string_view granularity;
  if (element["temporalGranularity"].get_string().get(granularity)) return otherwise;
  return GranularityOf(absl::string_view(granularity.data(), granularity.size()))
      .value_or(otherwise);
}

// One point; nullopt when carbonIntensity is null.
absl::StatusOr<std::optional<Reading>> ParsePoint(simdjson::dom::element point,
                                                  absl::string_view what, bool forecast,
                                                  absl::Duration granularity) {
  CARBONROUTE_ASSIGN_OR_RETURN(std::optional<double> value,
                               json::NullableNumber(point, "carbonIntensity", what));
  if (!value) return std::optional<Reading>();
  CARBONROUTE_ASSIGN_OR_RETURN(absl::Time datetime, json::Time(point, "datetime", what));
  Reading reading;
  reading.value = *value;
  reading.valid_from = datetime;
  reading.valid_to = datetime + Granularity(point, granularity);
  bool estimated = forecast;
  if (!forecast && point["isEstimated"].get_bool().get(estimated)) estimated = false;
  reading.estimated = estimated;
  return std::optional<Reading>(std::move(reading));
}

absl::StatusOr<std::vector<Reading>> ParseSeries(absl::string_view body, absl::string_view location,
                                                 const char* key, bool forecast,
                                                 absl::Duration requested) {
  const std::string what = absl::StrCat("electricity_maps ", location, " ", key);
  CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::element root, json::Parse(body, what));
  CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::element series, json::Field(root, key, what));
  simdjson::dom::array points;
  if (series.get_array().get(points)) return json::FieldError(what, key, "expected an array");
  std::vector<Reading> readings;
  const absl::Duration granularity = Granularity(root, requested);
  for (simdjson::dom::element point : points) {
    CARBONROUTE_ASSIGN_OR_RETURN(std::optional<Reading> reading,
                                 ParsePoint(point, what, forecast, granularity));
    if (reading) readings.push_back(*std::move(reading));
  }
  return readings;
}

}  // namespace

std::optional<absl::Duration> GranularityOf(absl::string_view text) {
  if (text == "5_minutes") return absl::Minutes(5);
  if (text == "15_minutes") return absl::Minutes(15);
  if (text == "hourly") return absl::Hours(1);
  return std::nullopt;
}

absl::StatusOr<Reading> ParseElectricityMapsLatest(absl::string_view body,
                                                   absl::string_view location,
                                                   absl::Duration requested) {
  const std::string what = absl::StrCat("electricity_maps ", location, " latest");
  CARBONROUTE_ASSIGN_OR_RETURN(simdjson::dom::element root, json::Parse(body, what));
  CARBONROUTE_ASSIGN_OR_RETURN(std::optional<Reading> reading,
                               ParsePoint(root, what, /*forecast=*/false, requested));
  if (!reading) return absl::UnavailableError(absl::StrCat(what, ": carbonIntensity is null"));
  return *std::move(reading);
}

absl::StatusOr<std::vector<Reading>> ParseElectricityMapsHistory(absl::string_view body,
                                                                 absl::string_view location,
                                                                 absl::Duration requested) {
  return ParseSeries(body, location, "history", /*forecast=*/false, requested);
}

absl::StatusOr<std::vector<Reading>> ParseElectricityMapsForecast(absl::string_view body,
                                                                  absl::string_view location,
                                                                  absl::Duration requested) {
  return ParseSeries(body, location, "forecast", /*forecast=*/true, requested);
}

}  // namespace carbonroute::providers
