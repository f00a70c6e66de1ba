// File: hold/forecast_source.h
//
// Where `scheduler-lite hold` reads forecasts: the seam between the
// controller and the collectors (tests give it a fixed set).
// CollectorForecasts asks each --collector in turn (the carbon role's
// replicas; the first that answers wins): a location's forecast from its
// forecast API (contract/forecast_api.h, as `window` reads it), and the
// cluster's grid locations from the `location` label of its
// carbonroute_carbon_intensity_grams_per_kilowatt_hour series on /metrics.
//
// Errors: kUnavailable naming every collector's failure when none answers;
// kNotFound when every collector that answered polls no such location.
// Thread safety: as the HTTP client.
#ifndef CARBONROUTE_HOLD_FORECAST_SOURCE_H_
#define CARBONROUTE_HOLD_FORECAST_SOURCE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "contract/forecast_api.h"
#include "model_sources/metrics_source.h"
#include "net/http_client.h"

namespace carbonroute::hold {

class ForecastSource {
 public:
  virtual ~ForecastSource() = default;
  // Every grid location the cluster's carbon role exports, sorted.
  virtual absl::StatusOr<std::vector<std::string>> Locations() = 0;
  virtual absl::StatusOr<std::vector<ForecastPoint>> Forecast(const std::string& location) = 0;
};

class CollectorForecasts final : public ForecastSource {
 public:
  // `collectors`: base URLs ("http://collector-carbon:9464"); borrows `http`.
  CollectorForecasts(std::vector<std::string> collectors, model_sources::SourceAuth auth,
                     net::HttpClient& http)
      : collectors_(std::move(collectors)), auth_(std::move(auth)), http_(http) {}

  absl::StatusOr<std::vector<std::string>> Locations() override;
  absl::StatusOr<std::vector<ForecastPoint>> Forecast(const std::string& location) override;

 private:
  const std::vector<std::string> collectors_;
  const model_sources::SourceAuth auth_;
  net::HttpClient& http_;
};

}  // namespace carbonroute::hold

#endif  // CARBONROUTE_HOLD_FORECAST_SOURCE_H_
