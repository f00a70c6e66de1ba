#include "collector/poller.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "collector/forecast_mean.h"
#include "collector/reading_records.h"

namespace carbonroute::collector {
namespace {

struct ForecastWindow {
  const char* label;
  absl::Duration length;
};
constexpr ForecastWindow kForecastWindows[] = {
    {"1h", absl::Hours(1)}, {"4h", absl::Hours(4)}, {"24h", absl::Hours(24)}};

constexpr absl::Duration kPruneEvery = absl::Hours(1);

exporter::SeriesLabels LabelsOf(const cache::SeriesKey& series) {
  return {series.provider, series.location, std::string(EmissionsTypeName(series.emissions_type))};
}

}  // namespace

std::string OutcomeLabel(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk: return "ok";
    case absl::StatusCode::kNotFound: return "not_found";
    case absl::StatusCode::kInvalidArgument: return "parse_error";
    case absl::StatusCode::kDeadlineExceeded: return "timeout";
    case absl::StatusCode::kUnavailable: return "unavailable";
    case absl::StatusCode::kResourceExhausted: return "rate_limited";
    case absl::StatusCode::kUnauthenticated: return "unauthenticated";
    case absl::StatusCode::kPermissionDenied: return "permission_denied";
    default: return "error";
  }
}

Poller::Poller(std::vector<providers::Provider*> providers, cache::ReadingStore& store,
               exporter::CollectorMetrics& metrics, PollConfig config)
    : providers_(std::move(providers)), store_(store), metrics_(metrics), config_(config) {}

void Poller::RecordOutcome(const cache::SeriesKey& series, absl::string_view what,
                           const absl::Status& status, PollStats& stats) {
  ++stats.provider_calls;
  metrics_.CountProviderRequest(series.provider, OutcomeLabel(status));
  const std::string key = absl::StrCat(series.provider, "/", series.location, "/", what);
  auto it = failing_.find(key);
  if (status.ok()) {
    if (it != failing_.end()) {
      spdlog::info("provider {} location {}: {} recovered", series.provider, series.location,
                   std::string(what));
      failing_.erase(it);
    }
    return;
  }
  ++stats.provider_errors;
  if (it == failing_.end() || it->second != status.code()) {
    spdlog::warn("provider {} location {}: {} failed: {}", series.provider, series.location,
                 std::string(what), status.ToString());
    failing_[key] = status.code();
  }
}

void Poller::PollCurrent(providers::Provider& provider, const cache::SeriesKey& series,
                         absl::Time now, PollStats& stats) {
  absl::StatusOr<std::optional<cache::IntensityRecord>> cached = store_.ValidAt(series, now);
  if (!cached.ok()) spdlog::error("cache lookup failed: {}", cached.status().ToString());
  std::optional<cache::IntensityRecord> current = cached.ok() ? *cached : std::nullopt;
  metrics_.CountCacheLookup(current.has_value());
  if (current) {
    ++stats.cache_hits;
  } else {
    absl::StatusOr<providers::Reading> reading = provider.Current(series.location, now);
    absl::Status status = reading.status();
    if (reading.ok() && !reading->Covers(now)) {
      status = absl::InvalidArgumentError(
          absl::StrCat("reading valid ", absl::FormatTime(reading->valid_from), " to ",
                       absl::FormatTime(reading->valid_to), " does not cover now"));
    }
    RecordOutcome(series, "current reading", status, stats);
    if (status.ok()) {
      current = ToRecord(*reading, now);
      if (absl::StatusOr<bool> stored = store_.Put(*current); !stored.ok()) {
        spdlog::error("cache write failed: {}", stored.status().ToString());
      }
    }
  }
  const exporter::SeriesLabels labels = LabelsOf(series);
  if (current && current->unit == kGramsPerKwhUnit) {
    metrics_.SetIntensity(labels, current->value, current->estimated, current->valid_to);
    ++stats.exported_series;
    stats.next_poll = std::min(stats.next_poll, current->valid_to);
  } else {
    metrics_.ClearIntensity(labels);
  }
}

void Poller::PollForecast(providers::Provider& provider, const cache::SeriesKey& series,
                          absl::Time now, PollStats& stats) {
  const absl::Duration horizon = config_.forecast_horizon;
  if (horizon <= absl::ZeroDuration()) return;
  absl::StatusOr<std::optional<absl::Time>> end = store_.ForecastEnd(series);
  if (!end.ok() || !end->has_value() || **end < now + horizon) {
    absl::StatusOr<std::vector<providers::Reading>> forecast =
        provider.Forecast(series.location, now, horizon);
    RecordOutcome(series, "forecast", forecast.status(), stats);
    if (forecast.ok()) {
      std::vector<cache::IntensityRecord> points;
      for (const providers::Reading& point : *forecast) points.push_back(ToRecord(point, now));
      if (absl::Status stored = store_.PutForecast(series, points); !stored.ok()) {
        spdlog::error("cache write failed: {}", stored.ToString());
      }
    }
  }
  absl::StatusOr<std::vector<cache::IntensityRecord>> points =
      store_.ForecastBetween(series, now, now + horizon);
  const exporter::SeriesLabels labels = LabelsOf(series);
  for (const ForecastWindow& window : kForecastWindows) {
    std::optional<double> mean;
    if (points.ok() && window.length <= horizon) mean = TimeWeightedMean(*points, now, now + window.length);
    if (mean) {
      metrics_.SetForecastMean(labels, window.label, *mean);
    } else {
      metrics_.ClearForecastMean(labels, window.label);
    }
  }
}

PollStats Poller::PollOnce(absl::Time now) {
  PollStats stats;
  stats.next_poll = now + config_.interval;
  for (providers::Provider* provider : providers_) {
    for (const std::string& location : provider->locations()) {
      const cache::SeriesKey series{provider->name(), location, provider->emissions_type()};
      PollCurrent(*provider, series, now, stats);
      PollForecast(*provider, series, now, stats);
    }
  }
  if (now - last_prune_ >= kPruneEvery) {
    absl::StatusOr<int64_t> pruned = store_.Prune(now - config_.retention);
    if (pruned.ok()) {
      if (*pruned > 0) spdlog::debug("pruned {} cached rows older than retention", *pruned);
    } else {
      spdlog::error("cache prune failed: {}", pruned.status().ToString());
    }
    last_prune_ = now;
  }
  metrics_.SetLastPoll(now);
  return stats;
}

void Poller::Run(Clock& clock, absl::Notification& stop) {
  while (!stop.HasBeenNotified()) {
    const absl::Time now = clock.Now();
    const PollStats stats = PollOnce(now);
    spdlog::debug("poll: {} cache hits, {} provider calls ({} failed), {} series exported",
                  stats.cache_hits, stats.provider_calls, stats.provider_errors,
                  stats.exported_series);
    // At least 1 s apart, so a provider answering with already-expired readings cannot spin the loop.
    if (clock.WaitUntil(std::max(stats.next_poll, now + absl::Seconds(1)), stop)) return;
  }
}

}  // namespace carbonroute::collector
