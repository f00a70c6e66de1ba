// File: providers/electricity_maps_provider.h
//
// `electricity_maps`: Electricity Maps API v3
// (https://static.electricitymaps.com/api/docs/index.html). Average emissions, gCO2eq/kWh.
//
//   current   GET {base}/carbon-intensity/latest
//   forecast  GET {base}/carbon-intensity/forecast   (not in the free plan)
//   history   GET {base}/carbon-intensity/history    (last 24 h: measured values
//             that replace the estimates stored earlier)
// each with zone=<location> (or lat/lon for "lat,lon", or dataCenterProvider
// and dataCenterRegion for "PROVIDER:REGION", Electricity Maps' own cloud
// mapping), emissionFactorType, temporalGranularity and disableEstimations=true
// when configured, and shouldUseFallbackCallerLookup=false (its API reference,
// portal.electricitymaps.com/developer-hub/api/reference); {base} ends in the
// configured API version (v3 by default, or v4). The token goes in the
// configured header (`auth-token`, or `X-BLOBR-KEY` on the api-access trial
// host). A reading is valid for its granularity: 5 or 15 minutes when asked.
//
// Plan limits are configuration errors, not outages: an answer naming
// "Token unauthorized for zoneKey" or "Endpoint not available" (free
// accounts: one zone; no forecast) becomes kFailedPrecondition with a message
// that says so; the collector reports it once and does not retry in a loop.
// Other errors: as StatusFromHttp and the parsers.
// Ownership: borrows the net::HttpClient. Thread safety: safe for concurrent
// use (no state of its own beyond its configuration; the HttpClient is safe).
#ifndef CARBONROUTE_PROVIDERS_ELECTRICITY_MAPS_PROVIDER_H_
#define CARBONROUTE_PROVIDERS_ELECTRICITY_MAPS_PROVIDER_H_

#include <memory>
#include <string>

#include "config/collector_config.h"
#include "net/http_client.h"
#include "providers/provider.h"

namespace carbonroute::providers {

class ElectricityMapsProvider final : public Provider {
 public:
  // Resolves the token (kNotFound naming the missing reference).
  static absl::StatusOr<std::unique_ptr<ElectricityMapsProvider>> Create(
      const ProviderConfig& config, net::HttpClient& http);

  const std::string& name() const override { return config_.name; }
  const std::vector<std::string>& locations() const override { return config_.locations; }
  EmissionsType emissions_type() const override { return EmissionsType::kAverage; }
  bool supports_history() const override { return true; }

  absl::StatusOr<Reading> Current(absl::string_view location, absl::Time now) override;
  absl::StatusOr<std::vector<Reading>> Forecast(absl::string_view location, absl::Time now,
                                                absl::Duration horizon) override;
  absl::StatusOr<std::vector<Reading>> History(absl::string_view location, absl::Time now) override;

 private:
  ElectricityMapsProvider(ProviderConfig config, net::HttpClient& http, std::string token)
      : config_(std::move(config)), http_(http), token_(std::move(token)) {}

  absl::StatusOr<std::string> Get(absl::string_view endpoint, absl::string_view location,
                                  absl::Time now);
  // The validity of a point the configured temporalGranularity asks for (1 h when none).
  absl::Duration RequestedGranularity() const;

  const ProviderConfig config_;
  net::HttpClient& http_;
  const std::string token_;
};

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_ELECTRICITY_MAPS_PROVIDER_H_
