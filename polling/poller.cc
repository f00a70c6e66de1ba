#include "polling/poller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "base/backoff.h"
#include "base/time_weighted_mean.h"
#include "contract/forecast_windows.h"
#include "contract/metric_labels.h"
#include "polling/reading_records.h"
#include "providers/http_status.h"

namespace carbonroute::polling {
namespace {

namespace label = metric_labels;

constexpr absl::Duration kPruneEvery = absl::Hours(1);
constexpr absl::Duration kForecastSlack = absl::Hours(1);
constexpr absl::Duration kForecastMinRefresh = absl::Minutes(15);
constexpr absl::Duration kHistoryEvery = absl::Hours(1);
constexpr absl::Duration kHistoryReach = absl::Hours(24);
constexpr char kHistoryFetch[] = "history";  // ReadingStore::RecordFetch kind

bool IsConfigurationError(const absl::Status& status) {
  const absl::StatusCode code = status.code();
  return code == absl::StatusCode::kUnauthenticated ||
         code == absl::StatusCode::kPermissionDenied ||
         code == absl::StatusCode::kFailedPrecondition || code == absl::StatusCode::kNotFound ||
         providers::IsRequestRefused(status);
}

}  // namespace

const char* SeriesStateLabel(SeriesState state) {
  switch (state) {
    case SeriesState::kOk:
      return "ok";
    case SeriesState::kBackoff:
      return "backoff";
    case SeriesState::kRateLimited:
      return "rate_limited";
    case SeriesState::kConfigurationError:
      return "configuration_error";
  }
  return "ok";
}

std::string OutcomeLabel(const absl::Status& status) {
  if (providers::IsRequestRefused(status)) return "bad_request";
  if (providers::IsHeldBack(status)) return "held_back";
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return "ok";
    case absl::StatusCode::kNotFound:
      return "not_found";
    case absl::StatusCode::kInvalidArgument:
      return "parse_error";
    case absl::StatusCode::kDeadlineExceeded:
      return "timeout";
    case absl::StatusCode::kUnavailable:
      return "unavailable";
    case absl::StatusCode::kResourceExhausted:
      return "rate_limited";
    case absl::StatusCode::kUnauthenticated:
      return "unauthenticated";
    case absl::StatusCode::kPermissionDenied:
      return "permission_denied";
    case absl::StatusCode::kFailedPrecondition:
      return "not_in_plan";
    default:
      return "error";
  }
}

void PollStats::Add(const PollStats& other) {
  cache_hits += other.cache_hits;
  provider_calls += other.provider_calls;
  provider_errors += other.provider_errors;
  skipped_calls += other.skipped_calls;
  exported_series += other.exported_series;
  next_poll = std::min(next_poll, other.next_poll);
}

Poller::Poller(std::vector<providers::Provider*> providers, cache::ReadingStore& store,
               exporter::CollectorMetrics& metrics, PollConfig config, uint64_t jitter_seed,
               Clock& clock)
    : providers_(std::move(providers)),
      store_(store),
      metrics_(metrics),
      config_(std::move(config)),
      clock_(clock) {
  // Every state exists from the start: the providers' loops then only look
  // entries up, so they may run on threads of their own.
  for (std::size_t i = 0; i < providers_.size(); ++i) {
    providers::Provider& provider = *providers_[i];
    ProviderState& state = provider_state_[provider.name()];
    absl::MutexLock lock(&state.mutex);
    state.jitter.seed(jitter_seed + i);
    provider.SetHiddenCallObserver([this, name = provider.name()](const absl::Status& status) {
      metrics_.CountProviderRequest(name, OutcomeLabel(status));
    });
    std::map<std::string, std::string>& codes = wanted_[provider.name()].codes;
    for (const std::string& location : provider.locations()) codes[location] = location;
  }
}

absl::Status Poller::SetLocations(const std::string& provider,
                                  std::map<std::string, std::string> codes, int unmapped_nodes) {
  absl::MutexLock lock(&locations_mutex_);
  auto it = wanted_.find(provider);
  if (it == wanted_.end()) {
    return absl::NotFoundError(absl::StrCat("no provider named \"", provider, "\""));
  }
  it->second = {std::move(codes), unmapped_nodes};
  return absl::OkStatus();
}

std::vector<std::string> Poller::Locations(const std::string& provider) const {
  absl::MutexLock lock(&locations_mutex_);
  std::vector<std::string> labels;
  if (auto it = wanted_.find(provider); it != wanted_.end()) {
    for (const auto& [label, code] : it->second.codes) labels.push_back(label);
  }
  return labels;
}

std::vector<IntensitySeries> Poller::PolledSeries() const {
  std::vector<IntensitySeries> polled;
  for (const providers::Provider* provider : providers_) {
    for (std::string& location : Locations(provider->name())) {
      polled.push_back({provider->name(), std::move(location), provider->emissions_type()});
    }
  }
  return polled;
}

Poller::SeriesPollState& Poller::StateOf(const IntensitySeries& series) {
  return provider_state_.at(series.provider).series.at(series.location);
}

absl::Time Poller::AnsweredAt(absl::Time now, absl::Time started) const {
  return now + std::max(absl::ZeroDuration(), clock_.Now() - started);
}

absl::Duration Poller::Backoff(int failures, std::mt19937_64& jitter) {
  return JitteredBackoff(config_.backoff_initial, config_.backoff_max, failures, jitter);
}

absl::Time Poller::ProviderBlockedUntil(const std::string& provider) const {
  auto it = provider_state_.find(provider);
  if (it == provider_state_.end()) return absl::InfinitePast();
  absl::MutexLock lock(&it->second.mutex);
  return it->second.blocked_until;
}

absl::Time Poller::SeriesBlockedUntil(const IntensitySeries& series) const {
  absl::Time own = absl::InfinitePast();
  if (auto account = provider_state_.find(series.provider); account != provider_state_.end()) {
    auto it = account->second.series.find(series.location);
    if (it != account->second.series.end()) own = it->second.blocked_until;
  }
  return std::max(own, ProviderBlockedUntil(series.provider));
}

Poller::Pause Poller::SeriesPause(const IntensitySeries& series) const {
  absl::MutexLock lock(&states_mutex_);
  Pause pause;
  if (auto own = series_pauses_.find(series); own != series_pauses_.end()) pause = own->second;
  if (auto account = provider_pauses_.find(series.provider);
      account != provider_pauses_.end() && account->second.until > pause.until) {
    pause = account->second;
  }
  return pause;
}

bool Poller::MayCall(const IntensitySeries& series, absl::Time now, PollStats& stats) const {
  const absl::Time until = SeriesBlockedUntil(series);
  if (now >= until) return true;
  ++stats.skipped_calls;
  stats.next_poll = std::min(stats.next_poll, until);
  return false;
}

void Poller::RecordOutcome(const IntensitySeries& series, const std::string& what,
                           const absl::Status& status, absl::Time answered, PollStats& stats) {
  ++stats.provider_calls;
  metrics_.CountProviderRequest(series.provider, OutcomeLabel(status));
  ProviderState& provider = provider_state_.at(series.provider);
  SeriesPollState& state = StateOf(series);
  auto failing = state.failing.find(what);
  absl::MutexLock account_lock(&provider.mutex);
  if (status.ok()) {
    provider.consecutive_failures = 0;
    state.consecutive_failures = 0;
    if (failing != state.failing.end()) {
      spdlog::info("provider {} location {}: {} recovered", series.provider, series.location, what);
      state.failing.erase(failing);
    }
    return;
  }
  ++stats.provider_errors;
  const absl::StatusCode code = status.code();
  absl::Duration pause;
  if (IsConfigurationError(status)) {
    pause = config_.config_error_retry;
    if (code == absl::StatusCode::kUnauthenticated) {  // the account's credentials
      provider.blocked_until = answered + pause;
      provider.pause = SeriesState::kConfigurationError;
    } else {
      state.blocked_until = answered + pause;
      state.pause = SeriesState::kConfigurationError;
    }
  } else if (code == absl::StatusCode::kResourceExhausted) {  // the account's rate limit
    ++provider.consecutive_failures;
    pause = providers::RetryAfter(status).value_or(
        Backoff(provider.consecutive_failures, provider.jitter));
    if (answered + pause > provider.blocked_until) provider.pause = SeriesState::kRateLimited;
    provider.blocked_until = std::max(provider.blocked_until, answered + pause);
  } else {  // transient, about this series
    ++state.consecutive_failures;
    pause = Backoff(state.consecutive_failures, provider.jitter);
    if (answered + pause > state.blocked_until) state.pause = SeriesState::kBackoff;
    state.blocked_until = std::max(state.blocked_until, answered + pause);
  }
  // Whole seconds: "next attempt in 37s", not 36.6709586465s of jitter.
  const absl::Duration shown = absl::Ceil(pause, absl::Seconds(1));
  const std::string reason =
      absl::StrCat(what, " failed (", OutcomeLabel(status), "): ", status.message());
  {
    absl::MutexLock lock(&states_mutex_);
    const bool account_wide = provider.blocked_until >= answered + pause;
    Pause& board = account_wide ? provider_pauses_[series.provider] : series_pauses_[series];
    board = {account_wide ? provider.blocked_until : state.blocked_until,
             account_wide ? provider.pause : state.pause, reason};
  }
  if (failing == state.failing.end() || failing->second != code) {
    spdlog::warn("provider {} location {}: {}; next attempt in {}", series.provider,
                 series.location, reason, absl::FormatDuration(shown));
    state.failing[what] = code;
  }
}

void Poller::Store(const cache::IntensityRecord& record) {
  cache_errors_.Record(label::kCachePut, store_.Put(record).status());
}

void Poller::PollCurrent(providers::Provider& provider, const IntensitySeries& series,
                         absl::Time now, PollStats& stats, bool call) {
  absl::StatusOr<std::optional<cache::IntensityRecord>> cached = store_.ValidAt(series, now);
  cache_errors_.Record(label::kCacheLookup, cached.status());
  std::optional<cache::IntensityRecord> current = cached.ok() ? *cached : std::nullopt;
  metrics_.CountCacheLookup(current.has_value());
  if (current) {
    ++stats.cache_hits;
  } else if (call && MayCall(series, now, stats)) {
    const absl::Time started = clock_.Now();
    absl::StatusOr<providers::Reading> reading = provider.Current(StateOf(series).code, now);
    const absl::Time answered = AnsweredAt(now, started);
    absl::Status status = reading.status();
    if (reading.ok() && !reading->Covers(now)) {
      status = absl::InvalidArgumentError(
          absl::StrCat("reading valid ", absl::FormatTime(reading->valid_from), " to ",
                       absl::FormatTime(reading->valid_to), " does not cover now"));
    }
    RecordOutcome(series, "current reading", status, answered, stats);
    if (status.ok()) {
      current = ToRecord(*reading, series, now);
      Store(*current);
      if (!reading->source_units.empty()) metrics_.SetProviderUnits(series, reading->source_units);
    }
  }
  // A fallback's provider without a valid reading gives way to a later one that has one.
  if (!current && ChainHasValid(series, now, /*earlier=*/false)) {
    metrics_.ClearIntensity(series);
    return;
  }
  if (!current) {  // grace: the last good reading, while its valid_to + grace is ahead
    absl::StatusOr<std::optional<cache::IntensityRecord>> last =
        store_.LatestEndingAfter(series, now - config_.grace);
    cache_errors_.Record(label::kCacheLookup, last.status());
    if (last.ok() && *last) current = **last;
  }
  if (!current) {
    metrics_.ClearIntensity(series);
    return;
  }
  if (const std::vector<std::string>* chain = FallbackChain(series);
      chain != nullptr && chain->front() != series.provider &&
      !StateOf(series).answering_in_place) {
    StateOf(series).answering_in_place = true;
    metrics_.CountFallback(series.location, series.provider, chain->front());
    spdlog::warn("provider {}: answers for {} in place of {}, which has no valid reading",
                 series.provider, series.location, chain->front());
  }
  metrics_.SetIntensity(series,
                        {.kind = current->kind,
                         .value = current->value,
                         .estimated = current->estimated,
                         .valid_to = current->valid_to,
                         .fetched_at = current->fetched_at},
                        now);
  ++stats.exported_series;
  const absl::Time series_change =
      current->valid_to > now ? current->valid_to : current->valid_to + config_.grace;
  stats.next_poll = std::min(stats.next_poll, series_change);
}

void Poller::PollForecast(providers::Provider& provider, const IntensitySeries& series,
                          absl::Time now, PollStats& stats) {
  const absl::Duration horizon = config_.forecast_horizon;
  if (horizon <= absl::ZeroDuration() || !provider.supports_forecast()) return;
  SeriesPollState& state = StateOf(series);
  absl::StatusOr<std::optional<absl::Time>> end = store_.ForecastEnd(series);
  cache_errors_.Record(label::kCacheLookup, end.status());
  // A forecast shorter than the horizon is fetched again once it has lost an hour of its reach.
  const absl::Duration wanted = std::min(horizon, state.forecast_reach - kForecastSlack);
  const bool short_of_horizon = !end.ok() || !end->has_value() || **end < now + wanted;
  if (short_of_horizon && now - state.last_forecast_fetch >= kForecastMinRefresh &&
      MayCall(series, now, stats)) {
    state.last_forecast_fetch = now;
    const absl::Time started = clock_.Now();
    absl::StatusOr<std::vector<providers::Reading>> forecast =
        provider.Forecast(state.code, now, horizon + kForecastSlack);
    RecordOutcome(series, "forecast", forecast.status(), AnsweredAt(now, started), stats);
    if (forecast.ok() && !forecast->empty()) {
      state.forecast_reach = forecast->back().valid_to - forecast->front().valid_from;
    }
    if (forecast.ok()) {
      std::vector<cache::IntensityRecord> points;
      for (const providers::Reading& point : *forecast)
        points.push_back(ToRecord(point, series, now));
      cache_errors_.Record(label::kCachePutForecast, store_.PutForecast(series, points));
    }
  }
  absl::StatusOr<std::vector<cache::IntensityRecord>> points =
      store_.ForecastBetween(series, now, now + horizon);
  cache_errors_.Record(label::kCacheLookup, points.status());
  for (const ForecastWindow& window : kForecastWindows) {
    std::optional<double> mean;
    if (points.ok() && window.length <= horizon &&
        (points->empty() || points->front().kind == ValueKind::kGramsPerKwh)) {
      mean = TimeWeightedMean(*points, now, now + window.length);
    }
    if (mean) {
      metrics_.SetForecastMean(series, window.label, *mean);
    } else {
      metrics_.ClearForecastMean(series, window.label);
    }
  }
}

void Poller::PollHistory(providers::Provider& provider, const IntensitySeries& series,
                         absl::Time now, PollStats& stats) {
  if (!provider.supports_history()) return;
  SeriesPollState& state = StateOf(series);
  if (state.last_history_fetch == absl::InfinitePast()) {  // first look: what a run before left
    absl::StatusOr<std::optional<absl::Time>> stored = store_.LastFetch(series, kHistoryFetch);
    cache_errors_.Record(label::kCacheLookup, stored.status());
    if (stored.ok() && stored->has_value()) state.last_history_fetch = **stored;
  }
  if (now - state.last_history_fetch < kHistoryEvery) return;
  // Only while an estimate of the last 24 h is stored that a measurement could replace.
  absl::StatusOr<bool> has_estimate = store_.HasEstimateEndingAfter(series, now - kHistoryReach);
  cache_errors_.Record(label::kCacheLookup, has_estimate.status());
  if (!has_estimate.ok() || !*has_estimate || !MayCall(series, now, stats)) return;
  state.last_history_fetch = now;
  cache_errors_.Record(label::kCacheRecordFetch, store_.RecordFetch(series, kHistoryFetch, now));
  const absl::Time started = clock_.Now();
  absl::StatusOr<std::vector<providers::Reading>> history = provider.History(state.code, now);
  RecordOutcome(series, "history", history.status(), AnsweredAt(now, started), stats);
  if (!history.ok()) return;
  std::vector<cache::IntensityRecord> measured;
  for (const providers::Reading& reading : *history) {
    if (!reading.estimated) measured.push_back(ToRecord(reading, series, now));
  }
  cache_errors_.Record(label::kCachePutMany, store_.PutMany(measured).status());
}

void Poller::FollowLocations(const providers::Provider& provider, absl::Time now,
                             PollStats& stats) {
  std::map<std::string, std::string> wanted;
  {
    absl::MutexLock lock(&locations_mutex_);
    wanted = wanted_.at(provider.name()).codes;
  }
  std::map<std::string, SeriesPollState>& states = provider_state_.at(provider.name()).series;
  for (const auto& [label, code] : wanted) {
    SeriesPollState& state = states[label];
    if (state.code != code && !state.code.empty()) state = SeriesPollState();  // a new code
    state.code = code;
    state.dropped_at = absl::InfiniteFuture();
  }
  for (auto it = states.begin(); it != states.end();) {
    const IntensitySeries series{provider.name(), it->first, provider.emissions_type()};
    SeriesPollState& state = it->second;
    if (wanted.contains(it->first)) {
      ++it;
      continue;
    }
    if (state.dropped_at == absl::InfiniteFuture()) {
      state.dropped_at = now;
      spdlog::info(
          "provider {} location {}: no longer polled (no Node there any more); its series are "
          "removed in {} (poll.grace)",
          provider.name(), it->first, absl::FormatDuration(config_.grace));
    }
    if (now >= state.dropped_at + config_.grace) {
      metrics_.RemoveSeries(series);
      it = states.erase(it);
      continue;
    }
    stats.next_poll = std::min(stats.next_poll, state.dropped_at + config_.grace);
    ++it;
  }
}

const std::vector<std::string>* Poller::FallbackChain(const IntensitySeries& series) const {
  for (const FallbackConfig& fallback : config_.fallback) {
    if (std::find(fallback.providers.begin(), fallback.providers.end(), series.provider) ==
        fallback.providers.end()) {
      continue;
    }
    if (fallback.locations.empty() ||
        std::find(fallback.locations.begin(), fallback.locations.end(), series.location) !=
            fallback.locations.end()) {
      return &fallback.providers;
    }
  }
  return nullptr;
}

bool Poller::ChainHasValid(const IntensitySeries& series, absl::Time now, bool earlier) {
  const std::vector<std::string>* chain = FallbackChain(series);
  if (chain == nullptr) return false;
  const auto own = std::find(chain->begin(), chain->end(), series.provider);
  const auto from = earlier ? chain->begin() : own + 1;
  const auto to = earlier ? own : chain->end();
  for (auto it = from; it != to; ++it) {
    absl::StatusOr<std::optional<cache::IntensityRecord>> valid =
        store_.ValidAt({*it, series.location, series.emissions_type}, now);
    cache_errors_.Record(label::kCacheLookup, valid.status());
    if (valid.ok() && valid->has_value()) return true;
  }
  return false;
}

void Poller::PollLocation(providers::Provider& provider, const std::string& location,
                          const SeriesPollState& state, absl::Time now, PollStats& stats) {
  const IntensitySeries series{provider.name(), location, provider.emissions_type()};
  if (state.dropped_at != absl::InfiniteFuture()) {  // the cache's reading, until grace ends
    PollCurrent(provider, series, now, stats, /*call=*/false);
    return;
  }
  if (ChainHasValid(series, now, /*earlier=*/true)) {  // a fallback's preferred one answers
    SeriesPollState& own = StateOf(series);
    if (own.answering_in_place) {
      spdlog::info("provider {}: {} stands by again: {} has a valid reading", series.provider,
                   series.location, FallbackChain(series)->front());
      own.answering_in_place = false;
    }
    metrics_.RemoveSeries(series);
    return;
  }
  // The forecast first: a provider whose forecast starts with the current
  // point (WattTime) then answers the current reading without a second call.
  PollForecast(provider, series, now, stats);
  PollCurrent(provider, series, now, stats);
  PollHistory(provider, series, now, stats);
}

void Poller::PollProvider(providers::Provider& provider, absl::Time now,
                          const absl::Notification* stop, PollStats& stats) {
  FollowLocations(provider, now, stats);
  std::vector<std::pair<const std::string*, const SeriesPollState*>> locations;
  for (const auto& [location, state] : provider_state_.at(provider.name()).series) {
    locations.emplace_back(&location, &state);
  }
  auto stopped = [stop] { return stop != nullptr && stop->HasBeenNotified(); };
  const std::size_t workers = std::min(
      locations.size(), static_cast<std::size_t>(std::max(1, config_.concurrent_locations)));
  if (workers <= 1) {
    for (const auto& [location, state] : locations) {
      if (stopped()) break;
      PollLocation(provider, *location, *state, now, stats);
    }
  } else {
    // Each worker takes the next location not yet taken; each location's
    // state is touched by the one worker polling it.
    std::atomic<std::size_t> next{0};
    std::vector<PollStats> worker_stats(workers);
    auto work = [&](PollStats& own) {
      own.next_poll = absl::InfiniteFuture();
      for (std::size_t i = next++; i < locations.size() && !stopped(); i = next++) {
        PollLocation(provider, *locations[i].first, *locations[i].second, now, own);
      }
    };
    std::vector<std::thread> threads;
    for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(work, std::ref(worker_stats[w]));
    work(worker_stats[0]);
    for (std::thread& thread : threads) thread.join();
    for (const PollStats& own : worker_stats) stats.Add(own);
  }
  RecordSeriesStates(provider, now);
}

void Poller::RecordSeriesStates(const providers::Provider& provider, absl::Time now) {
  const ProviderState& account = provider_state_.at(provider.name());
  SeriesStateCounts counts{};
  int polled = 0;
  absl::ReleasableMutexLock account_lock(&account.mutex);
  for (const auto& [location, state] : account.series) {
    if (state.dropped_at != absl::InfiniteFuture()) continue;
    ++polled;
    SeriesState current = SeriesState::kOk;
    if (now < state.blocked_until) current = state.pause;
    // The account's pause outranks a series' own when it lasts longer.
    if (now < account.blocked_until && account.blocked_until >= state.blocked_until) {
      current = account.pause;
    }
    ++counts[static_cast<std::size_t>(current)];
  }
  account_lock.Release();
  {
    absl::MutexLock lock(&locations_mutex_);
    metrics_.SetProviderLocations(provider.name(), polled,
                                  wanted_.at(provider.name()).unmapped_nodes);
  }
  for (SeriesState state : kAllSeriesStates) {
    metrics_.SetProviderSeries(provider.name(), SeriesStateLabel(state),
                               counts[static_cast<std::size_t>(state)]);
  }
  absl::MutexLock lock(&states_mutex_);
  series_states_[provider.name()] = counts;
}

std::map<std::string, SeriesStateCounts> Poller::SeriesStates() const {
  absl::MutexLock lock(&states_mutex_);
  return series_states_;
}

void Poller::PruneIfDue(absl::Time now) {
  {
    absl::MutexLock lock(&prune_mutex_);
    if (now - last_prune_ < kPruneEvery) return;
    last_prune_ = now;
  }
  absl::StatusOr<int64_t> pruned = store_.Prune(now - config_.retention);
  cache_errors_.Record(label::kCachePrune, pruned.status());
  if (pruned.ok() && *pruned > 0)
    spdlog::debug("pruned {} cached rows older than retention", *pruned);
}

PollStats Poller::PollOnce(absl::Time now, const absl::Notification* stop,
                           const providers::Provider* provider) {
  PollStats stats;
  stats.next_poll = now + config_.interval;
  for (providers::Provider* each : providers_) {
    if (provider == nullptr || each == provider) PollProvider(*each, now, stop, stats);
  }
  PruneIfDue(now);
  metrics_.SetLastPoll(now);
  return stats;
}

void Poller::Run(Clock& clock, absl::Notification& stop,
                 std::function<void(const PollStats&)> first_poll_done, ProgressMonitor* progress,
                 absl::Duration longest_call) {
  absl::Mutex mutex;
  PollStats first_polls;
  std::size_t first_polls_left = providers_.size();
  ProgressMonitor unwatched;  // the loops' promises when nobody watches them
  ProgressMonitor& monitor = progress != nullptr ? *progress : unwatched;
  auto loop = [&](providers::Provider* provider) {
    const ProgressMonitor::LoopId loop_id = monitor.Register("poll loop of " + provider->name());
    auto poll_budget = [&] {
      return kPollSlack +
             static_cast<int64_t>(Locations(provider->name()).size()) * 3 * longest_call;
    };
    monitor.Expect(loop_id, clock.Now() + poll_budget());
    if (absl::Status started = provider->Start(clock.Now()); !started.ok()) {
      spdlog::warn("provider {}: start-up check failed (polling goes ahead): {}", provider->name(),
                   std::string(started.message()));
    }
    bool first = true;
    while (!stop.HasBeenNotified()) {
      const absl::Time now = clock.Now();
      monitor.Expect(loop_id, now + poll_budget());
      const PollStats stats = PollOnce(now, &stop, provider);
      spdlog::debug(
          "poll of {}: {} cache hits, {} provider calls ({} failed, {} skipped), {} series "
          "exported",
          provider->name(), stats.cache_hits, stats.provider_calls, stats.provider_errors,
          stats.skipped_calls, stats.exported_series);
      if (first) {
        first = false;
        absl::MutexLock lock(&mutex);
        first_polls.Add(stats);
        if (--first_polls_left == 0 && first_poll_done) first_poll_done(first_polls);
      }
      // At least 1 s apart, so a provider answering with already-expired readings cannot spin
      // the loop.
      const absl::Time wake = std::max(stats.next_poll, now + absl::Seconds(1));
      monitor.Expect(loop_id, wake + kPollSlack);
      if (clock.WaitUntil(wake, stop)) break;
    }
    monitor.Finish(loop_id);
  };
  if (providers_.empty()) {
    if (first_poll_done) first_poll_done(first_polls);
    stop.WaitForNotification();
    return;
  }
  // One loop per provider, so a slow or stalled upstream delays only its own
  // provider's calls; with one provider, on this thread.
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < providers_.size(); ++i) threads.emplace_back(loop, providers_[i]);
  loop(providers_[0]);
  for (std::thread& thread : threads) thread.join();
}

}  // namespace carbonroute::polling
