// File: providers/electricity_maps_parser.h
//
// Parsers of Electricity Maps API v3 bodies (shapes as documented at
// https://static.electricitymaps.com/api/docs/index.html, recorded in
// test/providers/testdata/). Pure functions.
//
// Values are gCO2eq/kWh, average emissions. Validity: [datetime, datetime +
// granularity): the point's `temporalGranularity` (5_minutes, 15_minutes,
// hourly), else the body's, else `requested` (what the request asked for; one
// hour when it asked for nothing). `isEstimated` becomes Reading::estimated; forecast points are
// estimates. Unknown keys are ignored.
// Errors: kInvalidArgument for malformed JSON or a missing/mistyped field;
// kUnavailable when the latest point has a null carbonIntensity.
#ifndef CARBONROUTE_PROVIDERS_ELECTRICITY_MAPS_PARSER_H_
#define CARBONROUTE_PROVIDERS_ELECTRICITY_MAPS_PARSER_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "providers/reading.h"

namespace carbonroute::providers {

// /v3/carbon-intensity/latest.
absl::StatusOr<Reading> ParseElectricityMapsLatest(absl::string_view body,
                                                   absl::string_view location,
                                                   absl::Duration requested = absl::Hours(1));

// /v3/carbon-intensity/history ({"history": [...]}, oldest first). Null values are skipped.
absl::StatusOr<std::vector<Reading>> ParseElectricityMapsHistory(
    absl::string_view body, absl::string_view location, absl::Duration requested = absl::Hours(1));

// /v3/carbon-intensity/forecast ({"forecast": [{carbonIntensity, datetime}], "updatedAt"}).
absl::StatusOr<std::vector<Reading>> ParseElectricityMapsForecast(
    absl::string_view body, absl::string_view location, absl::Duration requested = absl::Hours(1));

// The validity of a point of `temporalGranularity` `text` (5_minutes, 15_minutes,
// hourly); nullopt for any other text.
std::optional<absl::Duration> GranularityOf(absl::string_view text);

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_ELECTRICITY_MAPS_PARSER_H_
