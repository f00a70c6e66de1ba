// File: hold/forecast_source.h
//
// Where `scheduler-lite hold` reads forecasts: the seam between the
// controller and the collectors (tests give it a fixed set).
// CollectorForecasts asks each --collector in turn (the carbon role's
// replicas; the first that answers wins): a location's forecast from its
// forecast API (contract/forecast_api.h, as `window` reads it), and the
// cluster's grid locations from the `location` label of its
// carbonroute_carbon_intensity_grams_per_kilowatt_hour series on /metrics,
// and, for the savings ledger, the mean of the readings it observed over a
// past interval: the Carbon Aware SDK's
// GET /emissions/average-carbon-intensity?location=L&startTime=T&endTime=T2
// over its cache (carbon_aware/carbon_aware_api.h; the SDK's contract:
// https://github.com/Green-Software-Foundation/carbon-aware-sdk,
// CarbonAwareController.cs), asked only after GET /emissions/bylocation over
// the same interval found a reading (the SDK's mean of no readings is 0), the
// emissions type being that of the first series of the location's forecast
// (the first provider polling it, as the SDK's).
//
// Errors: kUnavailable naming every collector's failure when none answers;
// kNotFound when every collector that answered polls no such location, or
// (Observed) holds no readings covering the interval.
// Thread safety: as the HTTP client.
#ifndef CARBONROUTE_HOLD_FORECAST_SOURCE_H_
#define CARBONROUTE_HOLD_FORECAST_SOURCE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "contract/emissions_type.h"
#include "contract/forecast_api.h"
#include "model_sources/metrics_source.h"
#include "net/http_client.h"

namespace carbonroute::hold {

// The time-weighted mean of the readings observed over an interval.
struct ObservedMean {
  double grams_per_kwh = 0;
  EmissionsType emissions_type = EmissionsType::kAverage;
};

class ForecastSource {
 public:
  virtual ~ForecastSource() = default;
  // Every grid location the cluster's carbon role exports, sorted.
  virtual absl::StatusOr<std::vector<std::string>> Locations() = 0;
  virtual absl::StatusOr<std::vector<ForecastPoint>> Forecast(const std::string& location) = 0;
  // The readings of `location` over [start, end), which has passed.
  virtual absl::StatusOr<ObservedMean> Observed(const std::string& location, absl::Time start,
                                                absl::Time end) = 0;
};

class CollectorForecasts final : public ForecastSource {
 public:
  // `collectors`: base URLs ("http://collector-carbon:9464"); borrows `http`.
  CollectorForecasts(std::vector<std::string> collectors, model_sources::SourceAuth auth,
                     net::HttpClient& http)
      : collectors_(std::move(collectors)), auth_(std::move(auth)), http_(http) {}

  absl::StatusOr<std::vector<std::string>> Locations() override;
  absl::StatusOr<std::vector<ForecastPoint>> Forecast(const std::string& location) override;
  absl::StatusOr<ObservedMean> Observed(const std::string& location, absl::Time start,
                                        absl::Time end) override;

 private:
  const std::vector<std::string> collectors_;
  const model_sources::SourceAuth auth_;
  net::HttpClient& http_;
};

}  // namespace carbonroute::hold

#endif  // CARBONROUTE_HOLD_FORECAST_SOURCE_H_
