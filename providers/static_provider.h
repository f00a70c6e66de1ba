// File: providers/static_provider.h
//
// `static`: fixed gCO2eq/kWh values from the config, for tests, air-gapped
// sites, or locations whose intensity is known by contract (e.g. a PPA).
// Each reading is valid for `validity`, aligned to multiples of it since the
// Unix epoch; the forecast repeats the value.
#ifndef CARBONROUTE_PROVIDERS_STATIC_PROVIDER_H_
#define CARBONROUTE_PROVIDERS_STATIC_PROVIDER_H_

#include <map>
#include <string>
#include <vector>

#include "config/collector_config.h"
#include "providers/provider.h"

namespace carbonroute::providers {

class StaticProvider final : public Provider {
 public:
  StaticProvider(std::string name, StaticSettings settings);

  const std::string& name() const override { return name_; }
  const std::vector<std::string>& locations() const override { return locations_; }
  EmissionsType emissions_type() const override { return settings_.emissions_type; }

  // kNotFound for a location that has no configured value.
  absl::StatusOr<Reading> Current(absl::string_view location, absl::Time now) override;
  absl::StatusOr<std::vector<Reading>> Forecast(absl::string_view location, absl::Time now,
                                                absl::Duration horizon) override;

 private:
  const std::string name_;
  const StaticSettings settings_;
  const std::vector<std::string> locations_;
};

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_STATIC_PROVIDER_H_
