// File: providers/watttime_parser.h
//
// Parsers of WattTime v3 response bodies (shapes as documented at
// https://docs.watttime.org, recorded in test/providers/testdata/). Pure functions.
//
// Units come from `meta.units`, never assumed:
//   lbs_co2_per_mwh → gCO2eq/kWh, × 0.453592 (1 lb/MWh = 453.592 g / 1000 kWh)
//   percentile      → ValueKind::kPercentile (0–100, /v3/signal-index)
// Validity: each point is valid from `point_time` for meta.data_point_period_seconds.
// Errors: kInvalidArgument for malformed JSON, a missing or mistyped field, or
// units other than the two above; kUnavailable for an empty `data` array.
#ifndef CARBONROUTE_PROVIDERS_WATTTIME_PARSER_H_
#define CARBONROUTE_PROVIDERS_WATTTIME_PARSER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "providers/reading.h"

namespace carbonroute::providers {

inline constexpr double kGramsPerKwhPerLbsPerMwh = 0.453592;

struct WattTimeSignal {
  std::vector<Reading> points;             // by point_time, converted
  std::string units;                       // meta.units as received
  std::optional<absl::Time> generated_at;  // meta.generated_at (forecasts)
};

// /v3/forecast and /v3/signal-index bodies. Points with a null value are skipped.
absl::StatusOr<WattTimeSignal> ParseWattTimeSignal(absl::string_view body,
                                                   absl::string_view location);

// /login: {"token": "..."}.
absl::StatusOr<std::string> ParseWattTimeToken(absl::string_view body);

// /v3/region-from-loc: {"region": "ISONE_WCMA", ...}.
absl::StatusOr<std::string> ParseWattTimeRegion(absl::string_view body);

// /v3/my-access: the regions the account may read for `signal_type`, each
// with the endpoints it may call ("v3/forecast", "v3/historical").
struct WattTimeAccess {
  std::string region;
  std::vector<std::string> endpoints;
};
absl::StatusOr<std::vector<WattTimeAccess>> ParseWattTimeAccess(absl::string_view body,
                                                                absl::string_view signal_type);

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_WATTTIME_PARSER_H_
