// File: providers/provider.h
//
// The interface every carbon-intensity source implements: replay and static
// (offline), WattTime v3, Electricity Maps v3 and UK Carbon Intensity.
// Create instances with MakeProvider() (providers/make_provider.h).
#ifndef CARBONROUTE_PROVIDERS_PROVIDER_H_
#define CARBONROUTE_PROVIDERS_PROVIDER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "contract/emissions_type.h"
#include "providers/reading.h"

namespace carbonroute::providers {

// A source of carbon-intensity readings and forecasts for grid locations.
//
// Each call may be one upstream request; the collector's cache decides when to
// call. Errors carry retry semantics in their code (providers/http_status.h
// maps HTTP answers to them):
//   kNotFound            the location is unknown to the provider (do not retry)
//   kInvalidArgument     the provider answered with something unusable, or
//                        refused our request (HTTP 400/422)
//   kUnavailable         a transient failure: 5xx, connection refused or reset
//   kDeadlineExceeded    the upstream did not answer in time
//   kResourceExhausted   rate limited (HTTP 429), with a Retry-After payload if given
//   kUnauthenticated     credentials rejected (HTTP 401) after any re-login
//   kPermissionDenied    not allowed for this account (HTTP 403)
//   kFailedPrecondition  not in the account's plan (e.g. a WattTime region)
//
// Thread safety: implementations are safe for concurrent use: the poller
// calls Current/Forecast/History for up to poll.concurrent_locations of a
// provider's locations at once (polling/poller.h). Start and
// SetHiddenCallObserver come before any of them, from one thread.
class Provider {
 public:
  virtual ~Provider() = default;

  // The configured name (unique per collector), used as the `provider` label.
  virtual const std::string& name() const = 0;

  // The grid locations this provider polls, in its own codes, as configured
  // (with any wildcard expanded).
  virtual const std::vector<std::string>& locations() const = 0;

  // The kind of signal this provider's readings are (average or marginal).
  virtual EmissionsType emissions_type() const = 0;

  // Called once before the first poll (log in, report account access). An
  // error is logged by the caller and polling goes ahead regardless.
  virtual absl::Status Start(absl::Time /*now*/) { return absl::OkStatus(); }

  // False for providers that have no forecast (the collector then asks for none).
  virtual bool supports_forecast() const { return true; }

  // The reading valid at `now` for `location`; its interval covers `now`.
  virtual absl::StatusOr<Reading> Current(absl::string_view location, absl::Time now) = 0;

  // Readings for consecutive intervals starting with the one that covers
  // `now` and reaching at least `now + horizon` (fewer if the provider's
  // forecast is shorter), ordered by valid_from.
  virtual absl::StatusOr<std::vector<Reading>> Forecast(absl::string_view location, absl::Time now,
                                                        absl::Duration horizon) = 0;

  // Recent readings (e.g. the last 24 h) that may replace stored estimates with
  // measured values. Providers without such an endpoint return an empty list.
  virtual absl::StatusOr<std::vector<Reading>> History(absl::string_view /*location*/,
                                                       absl::Time /*now*/) {
    return std::vector<Reading>();
  }
  virtual bool supports_history() const { return false; }

  // Receives the outcome of every upstream call that the caller does not see
  // (the 401 answered before a re-login and retry), so that every call is
  // counted. Set by the poller before polling; may be empty.
  void SetHiddenCallObserver(std::function<void(const absl::Status&)> observer) {
    hidden_call_observer_ = std::move(observer);
  }

 protected:
  void ReportHiddenCall(const absl::Status& status) const {
    if (hidden_call_observer_) hidden_call_observer_(status);
  }

 private:
  std::function<void(const absl::Status&)> hidden_call_observer_;
};

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_PROVIDER_H_
