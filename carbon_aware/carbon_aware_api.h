// File: carbon_aware/carbon_aware_api.h
//
// The Green Software Foundation Carbon Aware SDK's Web API, answered from the
// collector's cache: programs written against the SDK work against a
// collector unchanged, and no request reaches a provider (every answer is
// what the cache holds; the poll loop alone calls providers).
//
// The contract is the SDK's code (Green-Software-Foundation/carbon-aware-sdk
// at e6de58da895e5936b43ee66dbce925345bd88d02): the controllers
// src/CarbonAware.WebApi/src/Controllers/CarbonAwareController.cs and
// LocationsController.cs for routes, parameters and status codes; the DTOs in
// src/CarbonAware.WebApi/src/Models/ and GSF.CarbonAware/src/Models/ for the
// JSON (ASP.NET Core's camelCase); the handlers and CarbonAwareParameters for
// defaults and validation; HttpResponseExceptionFilter for error bodies.
//
//   GET /emissions/bylocation?location=L[&time=T][&toTime=T2]
//   GET /emissions/bylocations?location=L1&location=L2[&time=T][&toTime=T2]
//       200 [EmissionsData {location, time, rating, duration}], observed
//       readings overlapping [time, toTime] (time defaults to now, toTime to
//       time); 204 when there are none.
//   GET /emissions/bylocations/best?...   the same, only the lowest rating(s).
//   GET /emissions/forecasts/current?location=L...[&dataStartAt=T][&dataEndAt=T2][&windowSize=M]
//       200 [EmissionsForecastDTO {generatedAt, requestedAt, location,
//       dataStartAt, dataEndAt, windowSize, optimalDataPoints, forecastData}]
//       (points: EmissionsDataDTO {location, timestamp, duration (minutes),
//       value}); the forecast's points within [dataStartAt, dataEndAt] as a
//       rolling average over windowSize minutes, the lowest as optimal
//       (carbon_aware/emissions_math.h). generatedAt is when the collector
//       fetched the forecast.
//   GET /emissions/average-carbon-intensity?location=L&startTime=T&endTime=T2
//       200 CarbonIntensityDTO {location, startTime, endTime, carbonIntensity}:
//       the time-weighted mean of the observed readings.
//   GET /locations
//       200 {name: {latitude, longitude, name}} for every accepted name
//       (carbon_aware/location_names.h); 204 when none.
//
// Errors, as ASP.NET Core problem details (application/problem+json):
//   400 {type, title: "One or more validation errors occurred.", status,
//       errors: {parameter: ["The value 'x' is not valid for parameter."]}}
//       for a value that is not a time or a whole number (model binding);
//   400 {type, title: "ArgumentException", status, detail: "Invalid
//       parameters", errors: {parameter: [message]}} for a missing parameter
//       ("location is not set"), a start not before its end, an unknown
//       location, a forecast window outside the forecast, a period the
//       readings do not cover;
//   503 {type, title: "ServiceUnavailable", status, detail} when a location
//       has no cached forecast yet or the cache cannot be read (the SDK
//       answers 500 there; 503 says that asking again later helps).
// Where one provider's series is asked for, it is the first configured
// provider that polls the location (a location polled for both average and
// marginal intensity answers with the first one's).
//
// Ownership: borrows `data` and `clock`, which must outlive it.
// Thread safety: Handle may be called concurrently if `data` allows it.
#ifndef CARBONROUTE_CARBON_AWARE_CARBON_AWARE_API_H_
#define CARBONROUTE_CARBON_AWARE_CARBON_AWARE_API_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "carbon_aware/location_names.h"
#include "contract/forecast_api.h"

namespace carbonroute::carbon_aware {

// The cached forecast of one grid location.
struct CachedForecast {
  std::vector<ForecastPoint> points;  // by valid_from; the first covers now
  absl::Time fetched_at;              // when the collector fetched it
};

// What the API reads: the collector's cache (collector/carbon_aware_data.h).
class CarbonAwareData {
 public:
  virtual ~CarbonAwareData() = default;
  // The grid locations some provider polls.
  virtual std::vector<std::string> GridLocations() const = 0;
  // The stored readings of `location` overlapping [from, to), by valid_from.
  virtual absl::StatusOr<std::vector<ForecastPoint>> Observed(const std::string& location,
                                                              absl::Time from,
                                                              absl::Time to) const = 0;
  // The cached forecast of `location` from `now` on (no points: none cached).
  virtual absl::StatusOr<CachedForecast> Forecast(const std::string& location,
                                                  absl::Time now) const = 0;
};

struct ApiResponse {
  int status = 200;
  std::string content_type;
  std::string body;
};

class CarbonAwareApi {
 public:
  CarbonAwareApi(const CarbonAwareData& data, LocationNames names, const Clock& clock);

  // The paths Handle answers, in lower case: Handle matches a path ignoring
  // ASCII case and parameter names likewise, as the SDK (ASP.NET Core) does.
  static std::vector<std::string> Paths();

  // `query` is the part after '?' (net::HttpServerRequest::query).
  ApiResponse Handle(absl::string_view path, absl::string_view query) const;

  // The polled grid location `name` stands for (location_names.h), for the
  // collector's other endpoints; kNotFound naming it otherwise.
  absl::StatusOr<std::string> GridLocationOf(absl::string_view name) const {
    return names_.GridLocation(name, data_.GridLocations());
  }

  // Parameter errors in the order they were found: the problem details' `errors`.
  using Errors = std::vector<std::pair<std::string, std::vector<std::string>>>;

 private:
  // The grid location of each name; an unknown name is an error under "location".
  std::vector<std::string> GridLocations(const std::vector<std::string>& names,
                                         Errors& errors) const;
  ApiResponse EmissionsByLocations(absl::string_view query, bool best) const;
  ApiResponse CurrentForecasts(absl::string_view query) const;
  ApiResponse AverageCarbonIntensity(absl::string_view query) const;
  ApiResponse Locations() const;

  const CarbonAwareData& data_;
  LocationNames names_;
  const Clock& clock_;
};

}  // namespace carbonroute::carbon_aware

#endif  // CARBONROUTE_CARBON_AWARE_CARBON_AWARE_API_H_
