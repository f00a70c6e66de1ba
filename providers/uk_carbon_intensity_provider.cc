#include "providers/uk_carbon_intensity_provider.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "net/url.h"
#include "providers/http_status.h"
#include "providers/uk_carbon_intensity_parser.h"

namespace carbonroute::providers {
namespace {

bool ValidLocation(absl::string_view location) {
  int region = 0;
  absl::string_view rest = location;
  if (location == "national") return true;
  if (absl::ConsumePrefix(&rest, "region/"))
    return absl::SimpleAtoi(rest, &region) && region >= 1 && region <= 17;
  if (absl::ConsumePrefix(&rest, "postcode/")) return !rest.empty() && rest.size() <= 4;
  return false;
}

// "regionid/3" or "postcode/RG10" for the regional paths.
std::string RegionalSuffix(absl::string_view location) {
  absl::string_view rest = location;
  if (absl::ConsumePrefix(&rest, "region/")) return absl::StrCat("regionid/", rest);
  absl::ConsumePrefix(&rest, "postcode/");
  return absl::StrCat("postcode/", net::UrlEncode(rest));
}

}  // namespace

absl::StatusOr<std::unique_ptr<UkCarbonIntensityProvider>> UkCarbonIntensityProvider::Create(
    const ProviderConfig& config, net::HttpClient& http) {
  for (const std::string& location : config.locations) {
    if (!ValidLocation(location)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "provider \"", config.name, "\": location \"", location,
          "\" is not national, region/<1-17> or postcode/<outward code such as RG10>"));
    }
  }
  return std::unique_ptr<UkCarbonIntensityProvider>(new UkCarbonIntensityProvider(config, http));
}

absl::StatusOr<std::vector<Reading>> UkCarbonIntensityProvider::Fetch(const std::string& path,
                                                                      absl::string_view location,
                                                                      absl::Time now) {
  net::HttpRequest request;
  request.url = config_.http.base_url + path;
  request.timeout = config_.http.timeout;
  request.connect_timeout = config_.http.connect_timeout;
  request.headers.emplace_back("Accept", "application/json");
  CARBONROUTE_ASSIGN_OR_RETURN(net::HttpResponse response, http_.Send(request));
  CARBONROUTE_RETURN_IF_ERROR(
      StatusFromHttp(response, absl::StrCat("uk_carbon_intensity ", location), now));
  return ParseUkCarbonIntensity(response.body, location);
}

absl::StatusOr<Reading> UkCarbonIntensityProvider::Current(absl::string_view location,
                                                           absl::Time now) {
  const std::string path =
      location == "national" ? "/intensity" : absl::StrCat("/regional/", RegionalSuffix(location));
  CARBONROUTE_ASSIGN_OR_RETURN(std::vector<Reading> periods, Fetch(path, location, now));
  for (const Reading& period : periods) {
    if (period.Covers(now)) return period;
  }
  return periods.front();
}

absl::StatusOr<std::vector<Reading>> UkCarbonIntensityProvider::Forecast(absl::string_view location,
                                                                         absl::Time now,
                                                                         absl::Duration) {
  const std::string from = absl::FormatTime("%Y-%m-%dT%H:%MZ", now, absl::UTCTimeZone());
  const std::string path =
      location == "national"
          ? absl::StrCat("/intensity/", from, "/fw48h")
          : absl::StrCat("/regional/intensity/", from, "/fw48h/", RegionalSuffix(location));
  return Fetch(path, location, now);
}

}  // namespace carbonroute::providers
