// File: providers/uk_carbon_intensity_parser.h
//
// Parser of the UK Carbon Intensity API (NESO; api.carbonintensity.org.uk,
// docs in carbon-intensity/api-definitions, CC BY 4.0) bodies. Pure function.
//
// Accepted shapes (https://carbon-intensity.github.io/api-definitions/):
//   national   {"data": [{"from","to","intensity":{"forecast","actual","index"}}, ...]}
//   regionid   {"data": [{"regionid", ..., "data": [<period>, ...]}]}
//   regional forward windows may give "data" as an object: {"data": {"regionid", "data": [...]}}
//   all regions {"data": [{"from","to","regions":[{"regionid", "intensity", ...}, ...]}]}
//               (/regional, /regional/intensity/{from}/fw48h): the location must be
//               "region/<id>"; that region's values are read
// Value: `actual` when present and not null, else `forecast` (then
// estimated=true; regional data has forecasts only). Validity [from, to),
// half-hourly; times like "2018-01-20T12:00Z". gCO2eq/kWh, average emissions.
// Errors: kInvalidArgument for malformed JSON or a missing/mistyped field;
// kUnavailable when no period has a value.
#ifndef CARBONROUTE_PROVIDERS_UK_CARBON_INTENSITY_PARSER_H_
#define CARBONROUTE_PROVIDERS_UK_CARBON_INTENSITY_PARSER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "providers/reading.h"

namespace carbonroute::providers {

absl::StatusOr<std::vector<Reading>> ParseUkCarbonIntensity(absl::string_view body,
                                                            absl::string_view location);

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_UK_CARBON_INTENSITY_PARSER_H_
