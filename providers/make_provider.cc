#include "providers/make_provider.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "config/status_macros.h"
#include "providers/intensity_trace.h"
#include "providers/replay_provider.h"
#include "providers/electricity_maps_provider.h"
#include "providers/static_provider.h"
#include "providers/uk_carbon_intensity_provider.h"
#include "providers/watttime_provider.h"

namespace carbonroute::providers {

absl::StatusOr<std::string> FindDataFile(const std::string& name, const DataPaths& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> tried;
  if (fs::path(name).is_absolute() || fs::exists(name)) return name;
  tried.push_back(name);
  for (const std::string& dir : paths.search_dirs) {
    const std::string candidate = (fs::path(dir) / name).string();
    if (fs::exists(candidate)) return candidate;
    tried.push_back(candidate);
  }
  return absl::NotFoundError(absl::StrCat("data file \"", name, "\" not found; tried: ",
                                          absl::StrJoin(tried, ", ")));
}

absl::StatusOr<std::unique_ptr<Provider>> MakeProvider(const ProviderConfig& config,
                                                       const DataPaths& paths, HttpClient& http) {
  switch (config.type) {
    case ProviderType::kReplay: {
      CARBONROUTE_ASSIGN_OR_RETURN(std::string path, FindDataFile(config.replay.trace, paths));
      CARBONROUTE_ASSIGN_OR_RETURN(IntensityTrace trace, IntensityTrace::Load(path));
      CARBONROUTE_ASSIGN_OR_RETURN(
          std::unique_ptr<ReplayProvider> provider,
          ReplayProvider::Create(config.name,
                                 std::make_shared<const IntensityTrace>(std::move(trace)),
                                 config.locations));
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

}  // namespace carbonroute::providers
