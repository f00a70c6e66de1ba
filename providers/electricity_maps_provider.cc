#include "providers/electricity_maps_provider.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "net/url.h"
#include "providers/credentials.h"
#include "providers/electricity_maps_parser.h"
#include "providers/http_status.h"
#include "providers/lat_lon.h"

namespace carbonroute::providers {

absl::StatusOr<std::unique_ptr<ElectricityMapsProvider>> ElectricityMapsProvider::Create(
    const ProviderConfig& config, net::HttpClient& http) {
  CARBONROUTE_ASSIGN_OR_RETURN(std::string token,
                               ResolveSecret(config.electricity_maps.token,
                                             absl::StrCat("provider \"", config.name, "\" token")));
  return std::unique_ptr<ElectricityMapsProvider>(
      new ElectricityMapsProvider(config, http, std::move(token)));
}

absl::Duration ElectricityMapsProvider::RequestedGranularity() const {
  return GranularityOf(config_.electricity_maps.temporal_granularity).value_or(absl::Hours(1));
}

absl::StatusOr<std::string> ElectricityMapsProvider::Get(absl::string_view endpoint,
                                                         absl::string_view location,
                                                         absl::Time now) {
  std::vector<std::pair<std::string, std::string>> params;
  double latitude = 0, longitude = 0;
  const std::size_t separator = location.find(kDataCenterSeparator);
  if (ParseLatLon(location, latitude, longitude)) {
    params = {{"lat", absl::StrCat(latitude)}, {"lon", absl::StrCat(longitude)}};
  } else if (separator != absl::string_view::npos) {  // Electricity Maps' own cloud mapping
    params = {{"dataCenterProvider", std::string(location.substr(0, separator))},
              {"dataCenterRegion", std::string(location.substr(separator + 1))}};
  } else {
    params = {{"zone", std::string(location)}};
  }
  const ElectricityMapsSettings& settings = config_.electricity_maps;
  params.emplace_back("emissionFactorType", settings.emission_factor_type);
  if (!settings.temporal_granularity.empty()) {
    params.emplace_back("temporalGranularity", settings.temporal_granularity);
  }
  if (settings.disable_estimations) params.emplace_back("disableEstimations", "true");
  params.emplace_back("shouldUseFallbackCallerLookup", "false");
  net::HttpRequest request;
  request.url =
      absl::StrCat(config_.http.base_url, "/carbon-intensity/", endpoint, net::Query(params));
  request.timeout = config_.http.timeout;
  request.connect_timeout = config_.http.connect_timeout;
  request.headers.emplace_back(config_.electricity_maps.auth_header, token_);
  const std::string what = absl::StrCat("electricity_maps ", location, " ", endpoint);
  CARBONROUTE_ASSIGN_OR_RETURN(net::HttpResponse response, http_.Send(request));
  absl::Status status = StatusFromHttp(response, what, now);
  if (!status.ok() && response.status >= 400 && response.status < 500 &&
      (absl::StrContains(response.body, "Token unauthorized for zoneKey") ||
       absl::StrContains(response.body, "Endpoint not available"))) {
    return absl::FailedPreconditionError(absl::StrCat(
        what,
        ": not in this token's Electricity Maps plan (free accounts cover one zone and no "
        "forecast): ",
        BodyExcerpt(response.body)));
  }
  CARBONROUTE_RETURN_IF_ERROR(status);
  return std::move(response.body);
}

absl::StatusOr<Reading> ElectricityMapsProvider::Current(absl::string_view location,
                                                         absl::Time now) {
  CARBONROUTE_ASSIGN_OR_RETURN(std::string body, Get("latest", location, now));
  return ParseElectricityMapsLatest(body, location, RequestedGranularity());
}

absl::StatusOr<std::vector<Reading>> ElectricityMapsProvider::Forecast(absl::string_view location,
                                                                       absl::Time now,
                                                                       absl::Duration) {
  CARBONROUTE_ASSIGN_OR_RETURN(std::string body, Get("forecast", location, now));
  return ParseElectricityMapsForecast(body, location, RequestedGranularity());
}

absl::StatusOr<std::vector<Reading>> ElectricityMapsProvider::History(absl::string_view location,
                                                                      absl::Time now) {
  CARBONROUTE_ASSIGN_OR_RETURN(std::string body, Get("history", location, now));
  return ParseElectricityMapsHistory(body, location, RequestedGranularity());
}

}  // namespace carbonroute::providers
