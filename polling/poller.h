// File: polling/poller.h
//
// The collector's caching policy and poll loop. For every (provider, location):
//
//   1. Current reading: the cache is asked first; the provider is called only
//      when no stored reading covers `now`. What it returns is stored, then
//      exported (a percentile signal as carbonroute_carbon_intensity_percentile).
//   2. Forecast (providers that have one): fetched for horizon + 1 h, and
//      fetched again when the stored forecast ends before now + horizon, or,
//      for a provider whose forecast reaches less far (Electricity Maps: 24 h
//      from the hour), once it ends before now + its reach − 1 h: when a
//      newer hour is due in it (hourly), not on every poll; at most every 15
//      minutes. Time-weighted means over the next 1h/4h/24h are exported when
//      the forecast covers the whole window.
//   3. History (providers that have one, e.g. Electricity Maps): while a stored
//      reading of the last 24 h is an estimate, asked at most hourly, across
//      restarts too (the last call's time is kept in the cache); measured
//      values replace the estimates (cache/reading_store.h, Put).
//   4. Every hour, rows whose validity ended more than poll.retention ago are pruned.
//
// Failures (every call's outcome is counted in carbonroute_provider_requests_total;
// an error is logged once when a series starts failing and once when it recovers).
// Every pause starts when the failed call's answer (or its timeout) arrived,
// not when the poll began. What is paused is what the error is about:
//   - transient (kUnavailable, kDeadlineExceeded, kInvalidArgument for an
//     answer that cannot be parsed, such as an HTML error page or malformed
//     JSON): that series (provider, location) is not called again for
//     backoff_initial × 2^(n−1), capped at backoff_max, times a jitter factor
//     in [0.5, 1.5), n = the series' consecutive failures; the provider's
//     other locations go on being called, and a success of one resets only
//     its own count;
//   - rate limited (kResourceExhausted, about the account): the whole
//     provider, for the Retry-After delay when given, else as transient;
//   - configuration errors that retrying cannot fix (kUnauthenticated,
//     kPermissionDenied, kFailedPrecondition, kNotFound, and a request the
//     provider refused, HTTP 400/422): that series (for kUnauthenticated, the
//     whole provider) is not called again for poll.config_error_retry;
//   - while no fresh reading can be had, the last good one stays exported
//     until its valid_to + poll.grace, with carbonroute_carbon_intensity_age_seconds
//     growing; after that the series is removed (never a stale or zero value).
//
// Locations: each provider polls its configured locations, or the ones
// SetLocations() gives it (`locations: nodes`, followed as the cluster's
// Nodes change): a location given is polled from the provider's next poll
// (within poll.interval); one no longer given is not called again, its
// reading stays exported while valid and then for poll.grace, and all its
// series are removed poll.grace after it was dropped.
//
// Fallback (PollConfig::fallback, the configuration's top-level `fallback`):
// for a location an ordered list of providers names, a provider stands by while
// one before it has a reading valid now in the cache: its series is not
// exported and it makes no call for that location (its forecast and history
// included). Once none before it has one, it polls and exports as any provider
// (its `provider` label saying who answered), carbonroute_provider_fallbacks_total
// counting each time it begins to; and a provider whose reading ran out stops
// exporting it (no grace) while one after it has a valid reading. When the
// first answers again, at its next valid reading, the others stand by again.
// The cache keeps every provider's readings apart (they are series of their own).
//
// PollOnce() returns when to poll next: the earliest end of validity of an
// exported reading or end of a backoff, capped at now + poll.interval.
//
// Ownership: borrows the providers, store and metrics; all must outlive the Poller.
// Thread safety: PollOnce/Run from one thread at a time; Run polls the
// providers on threads of its own, and each provider's poll runs up to
// poll.concurrent_locations of its locations at once on threads of its own
// (so a hanging upstream holds up a first poll by one call timeout per
// round of locations, not one per location). The providers must be safe for
// concurrent use (providers/provider.h).
#ifndef CARBONROUTE_POLLING_POLLER_H_
#define CARBONROUTE_POLLING_POLLER_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "base/progress_monitor.h"
#include "cache/reading_store.h"
#include "config/collector_config.h"
#include "exporter/collector_metrics.h"
#include "polling/cache_errors.h"
#include "providers/provider.h"

namespace carbonroute::polling {

// Why a series is not called now. A series is kOk when nothing pauses it.
enum class SeriesState { kOk, kBackoff, kRateLimited, kConfigurationError };
inline constexpr SeriesState kAllSeriesStates[] = {SeriesState::kOk, SeriesState::kBackoff,
                                                   SeriesState::kRateLimited,
                                                   SeriesState::kConfigurationError};
// The `state` label of carbonroute_provider_series: "ok", "backoff",
// "rate_limited", "configuration_error".
const char* SeriesStateLabel(SeriesState state);

// How many of a provider's series were in each state at the end of its last
// poll, indexed by SeriesState.
using SeriesStateCounts = std::array<int, std::size(kAllSeriesStates)>;

// What one PollOnce did (for logs and tests).
struct PollStats {
  int cache_hits = 0;
  int provider_calls = 0;  // every call that reached a provider, failed ones included
  int provider_errors = 0;
  int skipped_calls = 0;  // calls not made because of a backoff or configuration-error pause
  int exported_series = 0;
  absl::Time next_poll;

  // Sums the counts; the earlier next_poll.
  void Add(const PollStats& other);
};

class Poller {
 public:
  // `jitter_seed` makes the backoff jitter reproducible in tests. `clock`
  // times each provider call, so that a pause starts when its answer came.
  Poller(std::vector<providers::Provider*> providers, cache::ReadingStore& store,
         exporter::CollectorMetrics& metrics, PollConfig config,
         uint64_t jitter_seed = std::random_device{}(), Clock& clock = RealClock());

  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  // One pass at `now`: every series of `provider` (null: of every provider)
  // polled once, the cache pruned when due, the last-poll time set. Run's loop
  // for each provider is this pass, again and again. With `stop`, returns
  // early (between two series) once it is notified, so that a long poll never
  // holds up a shutdown.
  PollStats PollOnce(absl::Time now, const absl::Notification* stop = nullptr,
                     const providers::Provider* provider = nullptr);

  // Starts each provider (Provider::Start; a failure is logged, polling goes
  // ahead), then polls until `stop` is notified, each provider in a loop of its own (on a
  // thread of its own when there are several), waiting on `clock` between its
  // polls: a slow or stalled provider delays no other's calls. Calls
  // `first_poll_done` (if any) once every provider has been polled once,
  // with their summed stats.
  //
  // With `progress`, each provider's loop is registered as "poll loop of
  // NAME" and promises, before a poll, to finish it within
  // kPollSlack + locations × 3 calls × `longest_call` (a call's whole-request
  // timeout, a WattTime login included), and before a wait, to wake by its
  // wake time + kPollSlack.
  void Run(Clock& clock, absl::Notification& stop,
           std::function<void(const PollStats&)> first_poll_done = nullptr,
           ProgressMonitor* progress = nullptr, absl::Duration longest_call = absl::Minutes(1));
  static constexpr absl::Duration kPollSlack = absl::Minutes(1);

  // Each provider's series by state at the end of its last poll (absent
  // before its first). Thread safety: any thread.
  std::map<std::string, SeriesStateCounts> SeriesStates() const;

  // The locations `provider` polls from its next poll: each series label (the
  // `location` label, a grid location) → the code the provider is called with
  // (the same for most; a WattTime region or "lat,lon" for WattTime).
  // `unmapped_nodes`: Nodes left out for want of a code (exported as
  // carbonroute_provider_unmapped_nodes).
  // kNotFound for a provider the Poller does not have. Thread safety: any thread.
  absl::Status SetLocations(const std::string& provider, std::map<std::string, std::string> codes,
                            int unmapped_nodes = 0);
  // The series labels `provider` polls now (empty for an unknown provider). Any thread.
  std::vector<std::string> Locations(const std::string& provider) const;
  // Every series polled now: each provider in configuration order × the
  // locations it polls (sorted), with its emissions type. Any thread.
  std::vector<IntensitySeries> PolledSeries() const;

  // The earliest time the provider may be called again for any location
  // (InfinitePast if not paused).
  absl::Time ProviderBlockedUntil(const std::string& provider) const;
  // The earliest time `series` may be called again (InfinitePast if not paused).
  absl::Time SeriesBlockedUntil(const IntensitySeries& series) const;

  // A series' pause as the status page shows it: until when, in which state
  // (backoff, rate_limited, configuration_error), and why: the failed call
  // and the provider's message (secret-free, as logged). The longer of the
  // series' own pause and its provider's (a 401 pauses every location).
  struct Pause {
    absl::Time until = absl::InfinitePast();
    SeriesState state = SeriesState::kOk;
    std::string reason;  // "current reading failed (unauthenticated): ..."
  };
  // Safe from any thread (the HTTP endpoint's), unlike SeriesBlockedUntil.
  Pause SeriesPause(const IntensitySeries& series) const;

 private:
  struct SeriesPollState {
    std::string code;  // what the provider is called with for this location
    absl::Time blocked_until = absl::InfinitePast();  // backoff or configuration-error pause
    SeriesState pause = SeriesState::kOk;             // why blocked_until is set
    int consecutive_failures = 0;
    absl::Time last_forecast_fetch = absl::InfinitePast();
    // How far the last forecast reached from its first point (Electricity Maps: 24 h).
    absl::Duration forecast_reach = absl::InfiniteDuration();
    absl::Time last_history_fetch = absl::InfinitePast();
    std::map<std::string, absl::StatusCode> failing;  // what ("current reading", ...) → code
    // When SetLocations stopped listing it (InfiniteFuture while listed).
    absl::Time dropped_at = absl::InfiniteFuture();
    // A fallback's later provider exporting in place of an earlier one (counted when it begins).
    bool answering_in_place = false;
  };
  struct ProviderState {
    // The account's state, shared by the provider's concurrent location polls.
    mutable absl::Mutex mutex;
    // an account error's pause
    absl::Time blocked_until ABSL_GUARDED_BY(mutex) = absl::InfinitePast();
    SeriesState pause ABSL_GUARDED_BY(mutex) = SeriesState::kOk;  // why blocked_until is set
    int consecutive_failures ABSL_GUARDED_BY(mutex) = 0;          // rate limits in a row
    std::mt19937_64 jitter ABSL_GUARDED_BY(mutex);  // for its own and its series' backoffs
    // Location label → its state. Entries are added and removed only by the
    // provider's loop between polls (FollowLocations); during a poll each
    // entry is touched by the one thread polling that location.
    std::map<std::string, SeriesPollState> series;
  };

  // With `call` false (a dropped location), only what the cache holds is exported.
  void PollCurrent(providers::Provider& provider, const IntensitySeries& series, absl::Time now,
                   PollStats& stats, bool call = true);
  SeriesPollState& StateOf(const IntensitySeries& series);
  // Applies the provider's wanted locations to its states: new ones start,
  // dropped ones are marked, those dropped poll.grace ago removed with their series.
  void FollowLocations(const providers::Provider& provider, absl::Time now, PollStats& stats);
  void PollForecast(providers::Provider& provider, const IntensitySeries& series, absl::Time now,
                    PollStats& stats);
  void PollHistory(providers::Provider& provider, const IntensitySeries& series, absl::Time now,
                   PollStats& stats);
  // The fallback's providers, in order, for `series`' provider and location; null when no
  // fallback names them.
  const std::vector<std::string>* FallbackChain(const IntensitySeries& series) const;
  // Whether a provider before (`earlier`) or after `series`' own in its fallback has a
  // reading valid at `now` in the cache.
  bool ChainHasValid(const IntensitySeries& series, absl::Time now, bool earlier);
  // Whether a call for `series` may be made now (counts a skipped call if not).
  bool MayCall(const IntensitySeries& series, absl::Time now, PollStats& stats) const;
  // Counts the outcome, logs a change of error state, and applies the failure
  // policy; pauses start at `answered`, when the call returned.
  void RecordOutcome(const IntensitySeries& series, const std::string& what,
                     const absl::Status& status, absl::Time answered, PollStats& stats);
  // When a call that started at poll time `now`, `started` by clock_, returned.
  absl::Time AnsweredAt(absl::Time now, absl::Time started) const;
  // backoff_initial × 2^(failures−1), capped at backoff_max, times a jitter factor.
  absl::Duration Backoff(int failures, std::mt19937_64& jitter);
  // Polls every location of `provider`, up to poll.concurrent_locations at
  // once, stopping early (between two locations) once `stop` is notified.
  void PollProvider(providers::Provider& provider, absl::Time now, const absl::Notification* stop,
                    PollStats& stats);
  // Polls one of the provider's locations.
  void PollLocation(providers::Provider& provider, const std::string& location,
                    const SeriesPollState& state, absl::Time now, PollStats& stats);
  // Counts the provider's series by state at `now`, exports and keeps the counts.
  void RecordSeriesStates(const providers::Provider& provider, absl::Time now);
  // Prunes the cache at most every hour (whichever provider's loop comes first).
  void PruneIfDue(absl::Time now);
  // Puts one reading into the cache, counting a failure.
  void Store(const cache::IntensityRecord& record);

  const std::vector<providers::Provider*> providers_;
  cache::ReadingStore& store_;
  exporter::CollectorMetrics& metrics_;
  CacheErrors cache_errors_{metrics_};
  const PollConfig config_;
  Clock& clock_;
  absl::Mutex prune_mutex_;
  absl::Time last_prune_ ABSL_GUARDED_BY(prune_mutex_) = absl::InfinitePast();
  // Made whole by the constructor; afterwards only looked up (never
  // inserted into), each entry by its provider's loop alone.
  std::map<std::string, ProviderState> provider_state_;
  mutable absl::Mutex locations_mutex_;
  // What SetLocations last gave for each provider.
  struct WantedLocations {
    std::map<std::string, std::string> codes;  // location label → the provider's code
    int unmapped_nodes = 0;
  };
  std::map<std::string, WantedLocations> wanted_ ABSL_GUARDED_BY(locations_mutex_);
  mutable absl::Mutex states_mutex_;
  std::map<std::string, SeriesStateCounts> series_states_ ABSL_GUARDED_BY(states_mutex_);
  // The pauses RecordOutcome set, for SeriesPause: per provider (its account's) and per series.
  std::map<std::string, Pause> provider_pauses_ ABSL_GUARDED_BY(states_mutex_);
  std::map<IntensitySeries, Pause> series_pauses_ ABSL_GUARDED_BY(states_mutex_);
};

// The outcome label for a provider call's status: "ok", "not_found",
// "parse_error", "bad_request" (the provider refused our request: HTTP 400,
// 422, ...), "held_back" (not sent: the client-side limiter,
// providers/call_limiter.h, held it back; the provider is paused as rate limited), "timeout",
// "unavailable", "rate_limited", "unauthenticated", "permission_denied", "not_in_plan" or "error".
std::string OutcomeLabel(const absl::Status& status);

}  // namespace carbonroute::polling

#endif  // CARBONROUTE_POLLING_POLLER_H_
