// File: contract/forecast_api.h
//
// The collector's forecast API, both sides of it: the collector encodes its
// cached forecast points, scheduler-lite's `window` command decodes them.
//
//   GET /api/v1/forecast?location=DE   (a polled grid location in any case, or a
//                                       cloud region of one: ?location=europe-west3)
//   200 {"location": "DE",
//        "series": [{"provider": "replay", "emissions_type": "average",
//                    "points": [{"valid_from": "2026-11-23T06:00:00Z",
//                                "valid_to": "2026-11-23T07:00:00Z",
//                                "grams_per_kwh": 412.5}, ...]}, ...]}
//   400 / 404 / 503 {"error": "..."}
//
// One series per provider polling the location; points sorted by
// valid_from, gCO2eq/kWh only (percentile signals are not forecasts of an
// intensity). Times are RFC 3339 in UTC with whole seconds.
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_CONTRACT_FORECAST_API_H_
#define CARBONROUTE_CONTRACT_FORECAST_API_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "contract/emissions_type.h"

namespace carbonroute {

// One forecast point: a constant intensity over [valid_from, valid_to).
struct ForecastPoint {
  absl::Time valid_from;
  absl::Time valid_to;
  double value = 0;  // gCO2eq/kWh
};

struct ForecastSeries {
  std::string provider;
  EmissionsType emissions_type = EmissionsType::kAverage;
  std::vector<ForecastPoint> points;
};

struct ForecastAnswer {
  std::string location;
  std::vector<ForecastSeries> series;
};

namespace forecast_api {

inline constexpr char kPath[] = "/api/v1/forecast";
inline constexpr char kLocationParameter[] = "location";

// The JSON body of a 200 answer. Times are truncated to whole seconds.
std::string EncodeAnswer(const ForecastAnswer& answer);
// The JSON body of an error answer: {"error": message}, escaped.
std::string EncodeError(absl::string_view message);

// Parses a 200 answer. kInvalidArgument naming the field and what was wrong
// (not JSON, a missing or mistyped field, an unknown emissions_type, a time
// that is not RFC 3339).
absl::StatusOr<ForecastAnswer> DecodeAnswer(absl::string_view json);

}  // namespace forecast_api
}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_FORECAST_API_H_
