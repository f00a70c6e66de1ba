#include "providers/watttime_provider.h"

#include <spdlog/spdlog.h>

#include <cmath>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "net/url.h"
#include "providers/credentials.h"
#include "providers/http_status.h"
#include "providers/lat_lon.h"
#include "providers/watttime_parser.h"

namespace carbonroute::providers {
namespace {

constexpr absl::Duration kTokenReuse = absl::Minutes(25);  // tokens expire after 30 min

}  // namespace

absl::StatusOr<std::unique_ptr<WattTimeProvider>> WattTimeProvider::Create(
    const ProviderConfig& config, net::HttpClient& http) {
  CARBONROUTE_ASSIGN_OR_RETURN(
      std::string username, ResolveSecret(config.watttime.username,
                                          absl::StrCat("provider \"", config.name, "\" username")));
  CARBONROUTE_ASSIGN_OR_RETURN(
      std::string password, ResolveSecret(config.watttime.password,
                                          absl::StrCat("provider \"", config.name, "\" password")));
  return std::unique_ptr<WattTimeProvider>(
      new WattTimeProvider(config, http, std::move(username), std::move(password)));
}

absl::Status WattTimeProvider::Login(absl::Time now) {
  net::HttpRequest request;
  request.url = config_.http.base_url + kWattTimeLoginPath;
  request.timeout = config_.http.timeout;
  request.connect_timeout = config_.http.connect_timeout;
  request.headers.emplace_back("Authorization",
                               "Basic " + absl::Base64Escape(username_ + ":" + password_));
  const std::string what = absl::StrCat("watttime login (provider \"", config_.name, "\")");
  CARBONROUTE_ASSIGN_OR_RETURN(net::HttpResponse response, http_.Send(request));
  CARBONROUTE_RETURN_IF_ERROR(StatusFromHttp(response, what, now));
  CARBONROUTE_ASSIGN_OR_RETURN(token_, ParseWattTimeToken(response.body));
  token_expires_ = now + kTokenReuse;
  return absl::OkStatus();
}

absl::StatusOr<std::string> WattTimeProvider::Token(absl::Time now, absl::string_view rejected) {
  absl::MutexLock lock(&token_mutex_);
  if (now >= token_expires_ || (!rejected.empty() && token_ == rejected)) {
    CARBONROUTE_RETURN_IF_ERROR(Login(now));
  }
  return token_;
}

absl::StatusOr<std::string> WattTimeProvider::Get(const std::string& path_and_query,
                                                  absl::string_view what, absl::Time now) {
  CARBONROUTE_ASSIGN_OR_RETURN(std::string token, Token(now));
  for (int attempt = 0;; ++attempt) {
    net::HttpRequest request;
    request.url = config_.http.base_url + path_and_query;
    request.timeout = config_.http.timeout;
    request.connect_timeout = config_.http.connect_timeout;
    request.headers.emplace_back("Authorization", "Bearer " + token);
    CARBONROUTE_ASSIGN_OR_RETURN(net::HttpResponse response, http_.Send(request));
    if ((response.status == 401 || response.status == 403) && attempt == 0) {
      ReportHiddenCall(StatusFromHttp(response, what, now));  // counted, then re-login
      CARBONROUTE_ASSIGN_OR_RETURN(token, Token(now, /*rejected=*/token));
      continue;
    }
    CARBONROUTE_RETURN_IF_ERROR(StatusFromHttp(response, what, now));
    return std::move(response.body);
  }
}

absl::StatusOr<std::string> WattTimeProvider::Region(absl::string_view location, absl::Time now) {
  double latitude = 0, longitude = 0;
  if (!ParseLatLon(location, latitude, longitude)) return std::string(location);
  {
    absl::MutexLock lock(&lookups_mutex_);
    if (auto it = regions_.find(location); it != regions_.end()) return it->second;
  }
  CARBONROUTE_ASSIGN_OR_RETURN(
      std::string body,
      Get("/v3/region-from-loc" + net::Query({{"latitude", absl::StrCat(latitude)},
                                              {"longitude", absl::StrCat(longitude)},
                                              {"signal_type", config_.watttime.signal_type}}),
          absl::StrCat("watttime region-from-loc ", location), now));
  CARBONROUTE_ASSIGN_OR_RETURN(std::string region, ParseWattTimeRegion(body));
  spdlog::info("provider {}: location {} is WattTime region {}", config_.name,
               std::string(location), region);
  absl::MutexLock lock(&lookups_mutex_);
  regions_.emplace(std::string(location), region);
  return region;
}

absl::StatusOr<std::vector<Reading>> WattTimeProvider::Signal(absl::string_view location,
                                                              absl::Time now, int horizon_hours) {
  CARBONROUTE_ASSIGN_OR_RETURN(std::string region, Region(location, now));
  const bool index = config_.watttime.data == "signal_index";
  std::vector<std::pair<std::string, std::string>> params = {
      {"region", region}, {"signal_type", config_.watttime.signal_type}};
  if (!index) params.emplace_back("horizon_hours", absl::StrCat(horizon_hours));
  const std::string what =
      absl::StrCat("watttime ", location, index ? " signal-index" : " forecast");
  CARBONROUTE_ASSIGN_OR_RETURN(
      std::string body,
      Get(std::string(index ? "/v3/signal-index" : "/v3/forecast") + net::Query(params), what,
          now));
  CARBONROUTE_ASSIGN_OR_RETURN(WattTimeSignal signal, ParseWattTimeSignal(body, location));
  return std::move(signal.points);
}

absl::Status WattTimeProvider::Start(absl::Time now) {
  CARBONROUTE_RETURN_IF_ERROR(Token(now).status());
  CARBONROUTE_ASSIGN_OR_RETURN(
      std::string body,
      Get("/v3/my-access" + net::Query({{"signal_type", config_.watttime.signal_type}}),
          "watttime my-access", now));
  CARBONROUTE_ASSIGN_OR_RETURN(std::vector<WattTimeAccess> access,
                               ParseWattTimeAccess(body, config_.watttime.signal_type));
  std::vector<std::string> readable, missing, no_forecast;
  for (const std::string& location : config_.locations) {
    double latitude = 0, longitude = 0;
    if (ParseLatLon(location, latitude, longitude)) continue;  // resolved on first use
    auto it = std::find_if(access.begin(), access.end(),
                           [&](const WattTimeAccess& a) { return a.region == location; });
    if (it == access.end()) {
      missing.push_back(location);
    } else {
      readable.push_back(location);
      if (std::find(it->endpoints.begin(), it->endpoints.end(), "v3/forecast") ==
          it->endpoints.end()) {
        no_forecast.push_back(location);
      }
    }
  }
  spdlog::info(
      "provider {}: WattTime account may read {} in {} regions; configured and readable: [{}]",
      config_.name, config_.watttime.signal_type, access.size(), absl::StrJoin(readable, ", "));
  if (!missing.empty() || (supports_forecast() && !no_forecast.empty())) {
    spdlog::warn(
        "provider {}: not readable with this account: [{}]; readable without /v3/forecast: [{}] "
        "(use data: signal_index for a free percentile signal in every region)",
        config_.name, absl::StrJoin(missing, ", "), absl::StrJoin(no_forecast, ", "));
  }
  return absl::OkStatus();
}

absl::StatusOr<Reading> WattTimeProvider::Current(absl::string_view location, absl::Time now) {
  // A forecast fetched for this same poll starts with the current point: no second call.
  std::optional<LastForecast> last;
  {
    absl::MutexLock lock(&lookups_mutex_);
    if (auto it = last_forecast_.find(location); it != last_forecast_.end()) {
      last = std::move(it->second);
      last_forecast_.erase(it);
    }
  }
  if (last && last->now == now) return last->current;
  CARBONROUTE_ASSIGN_OR_RETURN(std::vector<Reading> points,
                               Signal(location, now, /*horizon_hours=*/0));
  for (const Reading& point : points) {
    if (point.Covers(now)) return point;
  }
  return points.front();  // the collector reports a reading that does not cover now
}

absl::StatusOr<std::vector<Reading>> WattTimeProvider::Forecast(absl::string_view location,
                                                                absl::Time now,
                                                                absl::Duration horizon) {
  const int hours = std::clamp(static_cast<int>(std::ceil(absl::ToDoubleHours(horizon))), 1, 72);
  absl::StatusOr<std::vector<Reading>> points = Signal(location, now, hours);
  if (points.ok()) {
    absl::MutexLock lock(&lookups_mutex_);
    for (const Reading& point : *points) {
      if (point.Covers(now)) last_forecast_[std::string(location)] = {now, point};
    }
  }
  return points;
}

}  // namespace carbonroute::providers
