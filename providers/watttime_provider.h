// File: providers/watttime_provider.h
//
// `watttime`: WattTime API v3 (https://docs.watttime.org). Marginal
// emissions (MOER).
//
//   - GET /login with HTTP Basic auth gives a bearer token, valid 30 minutes;
//     it is reused for 25 minutes, then renewed, and renewed once more on a
//     401/403 answer before the call is retried once.
//   - data "forecast":     current = first point of /v3/forecast?horizon_hours=0;
//                          forecast = /v3/forecast?horizon_hours=ceil(horizon) (≤ 72)
//   - data "signal_index": current = /v3/signal-index (percentile 0–100); no forecast.
//   - A location "lat,lon" is resolved once through /v3/region-from-loc.
//   - Start() logs in and reports from /v3/my-access which configured regions
//     the account may read.
//
// Errors: those of StatusFromHttp (providers/http_status.h) and of the
// parsers (providers/watttime_parser.h); kNotFound for coordinates WattTime
// does not cover.
// Ownership: borrows the net::HttpClient. Thread safety: safe for concurrent
// use (the poller polls several locations at once): one login at a time, the
// others wait for its token.
#ifndef CARBONROUTE_PROVIDERS_WATTTIME_PROVIDER_H_
#define CARBONROUTE_PROVIDERS_WATTTIME_PROVIDER_H_

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/synchronization/mutex.h"
#include "config/collector_config.h"
#include "net/http_client.h"
#include "providers/provider.h"

namespace carbonroute::providers {

// The login endpoint's path, under the base URL
// (https://docs.watttime.org/#tag/Authentication).
inline constexpr char kWattTimeLoginPath[] = "/login";

class WattTimeProvider final : public Provider {
 public:
  // Resolves the credentials (kNotFound naming the missing reference).
  static absl::StatusOr<std::unique_ptr<WattTimeProvider>> Create(const ProviderConfig& config,
                                                                  net::HttpClient& http);

  const std::string& name() const override { return config_.name; }
  const std::vector<std::string>& locations() const override { return config_.locations; }
  EmissionsType emissions_type() const override { return EmissionsType::kMarginal; }
  bool supports_forecast() const override { return config_.watttime.data == "forecast"; }

  absl::Status Start(absl::Time now) override;
  absl::StatusOr<Reading> Current(absl::string_view location, absl::Time now) override;
  absl::StatusOr<std::vector<Reading>> Forecast(absl::string_view location, absl::Time now,
                                                absl::Duration horizon) override;

 private:
  WattTimeProvider(ProviderConfig config, net::HttpClient& http, std::string username,
                   std::string password)
      : config_(std::move(config)),
        http_(http),
        username_(std::move(username)),
        password_(std::move(password)) {}

  // The bearer token, logging in first when it is due for renewal or is
  // `rejected` (the token a 401/403 answered; a token renewed meanwhile by
  // another call is used as it is).
  absl::StatusOr<std::string> Token(absl::Time now, absl::string_view rejected = {});
  absl::Status Login(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(token_mutex_);
  // GET base_url + path_and_query with the bearer token; one re-login on 401/403.
  absl::StatusOr<std::string> Get(const std::string& path_and_query, absl::string_view what,
                                  absl::Time now);
  absl::StatusOr<std::string> Region(absl::string_view location, absl::Time now);
  absl::StatusOr<std::vector<Reading>> Signal(absl::string_view location, absl::Time now,
                                              int horizon_hours);

  const ProviderConfig config_;
  net::HttpClient& http_;
  const std::string username_;
  const std::string password_;
  absl::Mutex token_mutex_;
  std::string token_ ABSL_GUARDED_BY(token_mutex_);
  absl::Time token_expires_ ABSL_GUARDED_BY(token_mutex_) = absl::InfinitePast();
  absl::Mutex lookups_mutex_;
  // "lat,lon" → region
  std::map<std::string, std::string, std::less<>> regions_ ABSL_GUARDED_BY(lookups_mutex_);
  // The point covering `now` of the last forecast per location, until the
  // Current() of the same poll (same `now`) takes it instead of calling
  // /v3/forecast again (WattTime's forecast starts with the current point).
  struct LastForecast {
    absl::Time now;
    Reading current;
  };
  std::map<std::string, LastForecast, std::less<>> last_forecast_ ABSL_GUARDED_BY(lookups_mutex_);
};

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_WATTTIME_PROVIDER_H_
