#include "providers/make_provider.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "contract/intensity_trace.h"
#include "providers/electricity_maps_provider.h"
#include "providers/replay_provider.h"
#include "providers/static_provider.h"
#include "providers/uk_carbon_intensity_provider.h"
#include "providers/watttime_provider.h"

namespace carbonroute::providers {

absl::StatusOr<std::unique_ptr<Provider>> MakeProvider(const ProviderConfig& config,
                                                       const DataPaths& paths,
                                                       net::HttpClient& http) {
  switch (config.type) {
    case ProviderType::kReplay: {
      CARBONROUTE_ASSIGN_OR_RETURN(std::string path, FindDataFile(config.replay.trace, paths));
      CARBONROUTE_ASSIGN_OR_RETURN(IntensityTrace trace, IntensityTrace::Load(path));
      CARBONROUTE_ASSIGN_OR_RETURN(
          std::unique_ptr<ReplayProvider> provider,
          ReplayProvider::Create(
              config.name, std::make_shared<const IntensityTrace>(std::move(trace)),
              // `nodes`: any zone of the trace may be asked for; the collector says which.
              config.locations_from_nodes ? std::vector<std::string>{"*"} : config.locations));
      return provider;
    }
    case ProviderType::kStatic:
      return std::make_unique<StaticProvider>(config.name, config.static_values);
    case ProviderType::kWattTime:
      return WattTimeProvider::Create(config, http);
    case ProviderType::kElectricityMaps:
      return ElectricityMapsProvider::Create(config, http);
    case ProviderType::kUkCarbonIntensity:
      return UkCarbonIntensityProvider::Create(config, http);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("provider \"", config.name, "\": unsupported type"));
}

bool CallsAnApi(const ProviderConfig& config) {
  switch (config.type) {
    case ProviderType::kWattTime:
    case ProviderType::kElectricityMaps:
    case ProviderType::kUkCarbonIntensity:
      return true;
    case ProviderType::kReplay:
    case ProviderType::kStatic:
      return false;
  }
  return true;
}

}  // namespace carbonroute::providers
