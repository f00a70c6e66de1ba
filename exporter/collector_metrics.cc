#include "exporter/collector_metrics.h"

#include "contract/metric_labels.h"
#include "contract/metric_names.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"

namespace carbonroute::exporter {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;

namespace label = metric_labels;

prometheus::Labels SeriesLabelSet(const IntensitySeries& series) {
  return {{label::kProvider, series.provider},
          {label::kLocation, series.location},
          {label::kEmissionsType, std::string(EmissionsTypeName(series.emissions_type))}};
}

}  // namespace

CollectorMetrics::CollectorMetrics(prometheus::Registry& registry)
    : intensity_(BuildGauge()
                     .Name(metric_names::kCarbonIntensity)
                     .Help("Grid carbon intensity valid now, gCO2eq/kWh.")
                     .Register(registry)),
      percentile_(BuildGauge()
                      .Name(metric_names::kCarbonIntensityPercentile)
                      .Help("Relative carbon-intensity signal valid now, 0 (cleanest) to 100.")
                      .Register(registry)),
      valid_to_(BuildGauge()
                    .Name(metric_names::kCarbonIntensityValidTo)
                    .Help("End of the current carbon-intensity reading's validity, Unix seconds.")
                    .Register(registry)),
      age_(BuildGauge()
               .Name(metric_names::kCarbonIntensityAge)
               .Help("Seconds since the exported carbon-intensity reading was fetched.")
               .Register(registry)),
      units_(BuildGauge()
                 .Name(metric_names::kProviderUnits)
                 .Help("The unit a provider answered in, before conversion (=1).")
                 .Register(registry)),
      forecast_mean_(BuildGauge()
                         .Name(metric_names::kForecastMean)
                         .Help("Mean forecast carbon intensity over the next window, gCO2eq/kWh.")
                         .Register(registry)),
      provider_requests_(BuildCounter()
                             .Name(metric_names::kProviderRequests)
                             .Help("Calls to carbon-intensity providers, by outcome.")
                             .Register(registry)),
      provider_series_(BuildGauge()
                           .Name(metric_names::kProviderSeries)
                           .Help("A provider's series (one per location) by state at the end of "
                                 "its last poll: ok, backoff, rate_limited, configuration_error.")
                           .Register(registry)),
      provider_locations_(BuildGauge()
                              .Name(metric_names::kProviderLocations)
                              .Help("Grid locations a provider polls now.")
                              .Register(registry)),
      provider_unmapped_nodes_(
          BuildGauge()
              .Name(metric_names::kProviderUnmappedNodes)
              .Help("Nodes whose grid location a provider has no code for: not polled.")
              .Register(registry)),
      provider_budget_(BuildGauge()
                           .Name(metric_names::kProviderBudget)
                           .Help("Calls per calendar month this collector keeps to for a "
                                 "provider (its share of the account's budget).")
                           .Register(registry)),
      provider_budget_remaining_(BuildGauge()
                                     .Name(metric_names::kProviderBudgetRemaining)
                                     .Help("Calls left of a provider's monthly budget this month.")
                                     .Register(registry)),
      cache_lookups_(BuildCounter()
                         .Name(metric_names::kCacheLookups)
                         .Help("Cache lookups; a hit made a provider call unnecessary.")
                         .Register(registry)),
      provider_fallbacks_(BuildCounter()
                              .Name(metric_names::kProviderFallbacks)
                              .Help("Times a provider began answering for a location in place "
                                    "of the fallback's preferred provider, which had no valid "
                                    "reading.")
                              .Register(registry)),
      cache_errors_(BuildCounter()
                        .Name(metric_names::kCacheErrors)
                        .Help("Failed cache operations (disk full, I/O error, locked file), by "
                              "operation.")
                        .Register(registry)),
      node_info_(BuildGauge()
                     .Name(metric_names::kNodeInfo)
                     .Help("The grid location and cloud region this node draws power from (=1).")
                     .Register(registry)),
      zone_rtt_(BuildGauge()
                    .Name(metric_names::kZoneRtt)
                    .Help("Median of this node's fresh measured round-trip times to the peers of "
                          "a zone, seconds.")
                    .Register(registry)),
      last_poll_(BuildGauge()
                     .Name(metric_names::kLastPoll)
                     .Help("Unix time at which the last poll of every provider completed.")
                     .Register(registry)),
      peer_series_(std::make_shared<PeerSeriesTable>()) {
  for (const char* operation : label::kCacheOperations)
    cache_errors_.Add({{label::kOperation, operation}});
}

void CollectorMetrics::RemoveValue(IntensityGauges& series) {
  if (series.value == nullptr) return;
  (series.exported.kind == ValueKind::kPercentile ? percentile_ : intensity_).Remove(series.value);
  series.value = nullptr;
}

void CollectorMetrics::SetIntensity(const IntensitySeries& series, const ExportedReading& reading,
                                    absl::Time now) {
  const bool percentile = reading.kind == ValueKind::kPercentile;
  absl::MutexLock lock(&mutex_);
  const prometheus::Labels labels = SeriesLabelSet(series);
  // A gauge is created with its value (Family::Add forwards it to the
  // constructor under the family's lock): a scrape between creating and
  // setting it would otherwise read 0, a value never true here.
  const double valid_to_seconds = absl::ToDoubleSeconds(reading.valid_to - absl::UnixEpoch());
  const double age_seconds = reading.AgeSeconds(now);
  auto it = intensity_series_.find(series);
  if (it == intensity_series_.end()) {
    IntensityGauges created;
    created.valid_to = &valid_to_.Add(labels, valid_to_seconds);
    created.age = &age_.Add(labels, age_seconds);
    it = intensity_series_.emplace(series, created).first;
  }
  prometheus::Gauge* gauge = nullptr;
  if (percentile) {
    gauge = &percentile_.Add(
        {{label::kProvider, series.provider}, {label::kLocation, series.location}}, reading.value);
  } else {
    prometheus::Labels with_estimated = labels;
    with_estimated[label::kEstimated] = std::string(EstimatedLabel(reading.estimated));
    gauge = &intensity_.Add(with_estimated, reading.value);
  }
  if (it->second.value != gauge) RemoveValue(it->second);
  it->second.value = gauge;
  it->second.exported = reading;
  gauge->Set(reading.value);
  it->second.valid_to->Set(valid_to_seconds);
  it->second.age->Set(age_seconds);
}

std::map<IntensitySeries, CollectorMetrics::ExportedReading> CollectorMetrics::ExportedReadings()
    const {
  std::map<IntensitySeries, ExportedReading> readings;
  absl::MutexLock lock(&mutex_);
  for (const auto& [series, gauges] : intensity_series_) {
    if (gauges.value != nullptr) readings.emplace(series, gauges.exported);
  }
  return readings;
}

void CollectorMetrics::RefreshAges(absl::Time now) {
  absl::MutexLock lock(&mutex_);
  for (auto& [series, gauges] : intensity_series_) {
    gauges.age->Set(gauges.exported.AgeSeconds(now));
  }
}

void CollectorMetrics::ClearIntensity(const IntensitySeries& series) {
  absl::MutexLock lock(&mutex_);
  auto it = intensity_series_.find(series);
  if (it == intensity_series_.end()) return;
  RemoveValue(it->second);
  valid_to_.Remove(it->second.valid_to);
  age_.Remove(it->second.age);
  intensity_series_.erase(it);
}

void CollectorMetrics::SetProviderUnits(const IntensitySeries& series, const std::string& units) {
  absl::MutexLock lock(&mutex_);
  prometheus::Gauge*& gauge = units_series_[series];
  prometheus::Gauge& wanted = units_.Add({{label::kProvider, series.provider},
                                          {label::kLocation, series.location},
                                          {label::kUnits, units}},
                                         1.0);
  if (gauge != nullptr && gauge != &wanted) units_.Remove(gauge);
  gauge = &wanted;
  gauge->Set(1);
}

void CollectorMetrics::SetForecastMean(const IntensitySeries& series, const std::string& window,
                                       double grams_per_kwh) {
  absl::MutexLock lock(&mutex_);
  prometheus::Gauge*& gauge = forecast_series_[{series, window}];
  if (gauge == nullptr) {
    prometheus::Labels labels = SeriesLabelSet(series);
    labels[label::kWindow] = window;
    gauge = &forecast_mean_.Add(labels, grams_per_kwh);
  }
  gauge->Set(grams_per_kwh);
}

void CollectorMetrics::ClearForecastMean(const IntensitySeries& series, const std::string& window) {
  absl::MutexLock lock(&mutex_);
  auto it = forecast_series_.find({series, window});
  if (it == forecast_series_.end()) return;
  forecast_mean_.Remove(it->second);
  forecast_series_.erase(it);
}

void CollectorMetrics::RemoveSeries(const IntensitySeries& series) {
  ClearIntensity(series);
  absl::MutexLock lock(&mutex_);
  for (auto it = forecast_series_.begin(); it != forecast_series_.end();) {
    if (it->first.first == series) {
      forecast_mean_.Remove(it->second);
      it = forecast_series_.erase(it);
    } else {
      ++it;
    }
  }
  if (auto it = units_series_.find(series); it != units_series_.end()) {
    units_.Remove(it->second);
    units_series_.erase(it);
  }
}

void CollectorMetrics::SetProviderLocations(const std::string& provider, int locations,
                                            int unmapped_nodes) {
  provider_locations_.Add({{label::kProvider, provider}}).Set(locations);
  provider_unmapped_nodes_.Add({{label::kProvider, provider}}).Set(unmapped_nodes);
}

void CollectorMetrics::SetProviderBudget(const std::string& provider, int64_t budget,
                                         int64_t left) {
  provider_budget_.Add({{label::kProvider, provider}}).Set(static_cast<double>(budget));
  provider_budget_remaining_.Add({{label::kProvider, provider}}).Set(static_cast<double>(left));
}

void CollectorMetrics::CountProviderRequest(const std::string& provider,
                                            const std::string& outcome) {
  provider_requests_.Add({{label::kProvider, provider}, {label::kOutcome, outcome}}).Increment();
}

void CollectorMetrics::SetProviderSeries(const std::string& provider, const std::string& state,
                                         int count) {
  provider_series_.Add({{label::kProvider, provider}, {label::kState, state}})
      .Set(static_cast<double>(count));
}

void CollectorMetrics::CountCacheLookup(bool hit) {
  cache_lookups_.Add({{label::kOutcome, hit ? label::kCacheHit : label::kCacheMiss}}).Increment();
}

void CollectorMetrics::CountFallback(const std::string& location, const std::string& provider,
                                     const std::string& preferred) {
  provider_fallbacks_
      .Add({{label::kLocation, location},
            {label::kProvider, provider},
            {label::kPreferred, preferred}})
      .Increment();
}

void CollectorMetrics::CountCacheError(const std::string& operation) {
  cache_errors_.Add({{label::kOperation, operation}}).Increment();
}

void CollectorMetrics::SetNodeInfo(const std::string& node, const std::string& location,
                                   const std::string& region, const std::string& zone) {
  absl::MutexLock lock(&mutex_);
  prometheus::Gauge& series = node_info_.Add({{label::kNode, node},
                                              {label::kLocation, location},
                                              {label::kRegion, region},
                                              {label::kZone, zone}},
                                             1.0);
  if (node_info_series_ != nullptr && node_info_series_ != &series) {
    node_info_.Remove(node_info_series_);
  }
  node_info_series_ = &series;
  series.Set(1);
}

void CollectorMetrics::SetZoneRtt(const std::string& source_zone, const std::string& target_zone,
                                  std::optional<absl::Duration> rtt) {
  const std::map<std::string, std::string> labels = {{label::kSourceZone, source_zone},
                                                     {label::kTargetZone, target_zone}};
  if (rtt) {
    zone_rtt_.Add(labels, absl::ToDoubleSeconds(*rtt)).Set(absl::ToDoubleSeconds(*rtt));
  } else if (zone_rtt_.Has(labels)) {
    zone_rtt_.Remove(&zone_rtt_.Add(labels));
  }
}

void CollectorMetrics::SetDeclaredRtt(const std::string& source, const std::string& target,
                                      absl::Duration rtt) {
  peer_series_->SetDeclaredRtt(source, target, rtt);
}

CollectorMetrics::ProbeSeries& CollectorMetrics::ProbeSeriesFor(const std::string& source,
                                                                const std::string& target) {
  return peer_series_->Add(source, target);
}

void CollectorMetrics::RecordProbe(ProbeSeries& series, std::optional<absl::Duration> rtt,
                                   std::optional<absl::Duration> smoothed, double loss_ratio) {
  peer_series_->RecordProbe(series, rtt, smoothed, loss_ratio);
}

void CollectorMetrics::SetProbeState(ProbeSeries& series, std::optional<absl::Duration> smoothed,
                                     double loss_ratio) {
  peer_series_->SetState(series, smoothed, loss_ratio);
}

void CollectorMetrics::RemoveProbeTarget(const std::string& source, const std::string& target) {
  peer_series_->Remove(source, target);
}

void CollectorMetrics::SetProbeHistogramMaxPeers(std::size_t peers) {
  peer_series_->set_histogram_max_peers(peers);
}

void CollectorMetrics::SetLastPoll(absl::Time t) {
  // Added at the first poll: a collector without providers (the latency role) has no poll
  // loop, and a 0 here would read as a loop stuck since 1970.
  last_poll_.Add({}).Set(absl::ToDoubleSeconds(t - absl::UnixEpoch()));
}

}  // namespace carbonroute::exporter
