// File: providers/uk_carbon_intensity_provider.h
//
// `uk_carbon_intensity`: the NESO Carbon Intensity API for Great Britain
// (no authentication; https://carbon-intensity.github.io/api-definitions/).
// Average emissions, gCO2eq/kWh, half-hourly.
//
// Locations:
//   national        current GET /intensity,
//                   forecast GET /intensity/{from}/fw48h
//   region/<1-17>   current GET /regional/regionid/<id>,
//                   forecast GET /regional/intensity/{from}/fw48h/regionid/<id>
//   postcode/<out>  current GET /regional/postcode/<outward code, e.g. RG10>,
//                   forecast GET /regional/intensity/{from}/fw48h/postcode/<code>
// `actual` is used when known, else `forecast` (estimated=true); regional
// data are forecasts only.
//
// Errors: kInvalidArgument at Create() for another location form; otherwise
// as StatusFromHttp and the parser.
// Ownership: borrows the net::HttpClient. Thread safety: safe for concurrent
// use (no state of its own beyond its configuration; the HttpClient is safe).
#ifndef CARBONROUTE_PROVIDERS_UK_CARBON_INTENSITY_PROVIDER_H_
#define CARBONROUTE_PROVIDERS_UK_CARBON_INTENSITY_PROVIDER_H_

#include <memory>
#include <string>

#include "config/collector_config.h"
#include "net/http_client.h"
#include "providers/provider.h"

namespace carbonroute::providers {

class UkCarbonIntensityProvider final : public Provider {
 public:
  static absl::StatusOr<std::unique_ptr<UkCarbonIntensityProvider>> Create(
      const ProviderConfig& config, net::HttpClient& http);

  const std::string& name() const override { return config_.name; }
  const std::vector<std::string>& locations() const override { return config_.locations; }
  EmissionsType emissions_type() const override { return EmissionsType::kAverage; }

  absl::StatusOr<Reading> Current(absl::string_view location, absl::Time now) override;
  absl::StatusOr<std::vector<Reading>> Forecast(absl::string_view location, absl::Time now,
                                                absl::Duration horizon) override;

 private:
  UkCarbonIntensityProvider(ProviderConfig config, net::HttpClient& http)
      : config_(std::move(config)), http_(http) {}

  absl::StatusOr<std::vector<Reading>> Fetch(const std::string& path, absl::string_view location,
                                             absl::Time now);

  const ProviderConfig config_;
  net::HttpClient& http_;
};

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_UK_CARBON_INTENSITY_PROVIDER_H_
