// File: collector/poller.h
//
// The collector's caching policy and poll loop. For every (provider, location):
//
//   1. Current reading: the cache is asked first; the provider is called only
//      when no stored reading covers `now`. What it returns is stored, then
//      exported. With no valid reading, the series is removed from /metrics
//      (never a stale or zero value).
//   2. Forecast: fetched again only when the stored forecast ends before
//      now + poll.forecast_horizon. Its time-weighted means over the next 1h,
//      4h and 24h (each when the horizon reaches it) are exported.
//   3. Every hour, rows whose validity ended more than poll.retention ago
//      are pruned.
//
// PollOnce() returns when to poll next: the earliest end of validity of an
// exported reading, capped at now + poll.interval, so a new hour's value is
// exported as soon as it becomes valid.
//
// Provider errors never stop the loop: each call's outcome is counted in
// carbonroute_provider_requests_total, and an error is logged once, when a
// series first fails (and once when it recovers).
//
// Ownership: borrows the providers, store, metrics and clock; all must
// outlive the Poller.
// Thread safety: PollOnce/Run from one thread at a time.
#ifndef CARBONROUTE_COLLECTOR_POLLER_H_
#define CARBONROUTE_COLLECTOR_POLLER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "cache/reading_store.h"
#include "config/clock.h"
#include "config/collector_config.h"
#include "exporter/collector_metrics.h"
#include "providers/provider.h"

namespace carbonroute::collector {

// What one PollOnce did (for logs and tests).
struct PollStats {
  int cache_hits = 0;
  int provider_calls = 0;  // current and forecast calls, failed ones included
  int provider_errors = 0;
  int exported_series = 0;
  absl::Time next_poll;
};

class Poller {
 public:
  Poller(std::vector<providers::Provider*> providers, cache::ReadingStore& store,
         exporter::CollectorMetrics& metrics, PollConfig config);

  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  PollStats PollOnce(absl::Time now);

  // Polls until `stop` is notified, waiting on `clock` between polls.
  void Run(Clock& clock, absl::Notification& stop);

 private:
  // Makes sure a valid reading for `series` is stored and exported.
  void PollCurrent(providers::Provider& provider, const cache::SeriesKey& series, absl::Time now,
                   PollStats& stats);
  void PollForecast(providers::Provider& provider, const cache::SeriesKey& series, absl::Time now,
                    PollStats& stats);
  // Counts a call's outcome and logs a change of a series' error state.
  void RecordOutcome(const cache::SeriesKey& series, absl::string_view what,
                     const absl::Status& status, PollStats& stats);

  const std::vector<providers::Provider*> providers_;
  cache::ReadingStore& store_;
  exporter::CollectorMetrics& metrics_;
  const PollConfig config_;
  absl::Time last_prune_ = absl::InfinitePast();
  // "provider/location/what" → last error, for log-once.
  std::map<std::string, absl::StatusCode> failing_;
};

// The outcome label for a provider call's status: "ok", "not_found",
// "parse_error", "timeout", "unavailable", "rate_limited", "unauthenticated",
// "permission_denied" or "error".
std::string OutcomeLabel(const absl::Status& status);

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_POLLER_H_
