#include "exporter/collector_metrics.h"

#include "exporter/metric_names.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"

namespace carbonroute::exporter {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;

prometheus::Labels SeriesLabelSet(const SeriesLabels& series) {
  return {{"provider", series.provider},
          {"location", series.location},
          {"emissions_type", series.emissions_type}};
}

}  // namespace

CollectorMetrics::CollectorMetrics(prometheus::Registry& registry)
    : intensity_(BuildGauge()
                     .Name(metric_names::kCarbonIntensity)
                     .Help("Grid carbon intensity valid now, gCO2eq/kWh.")
                     .Register(registry)),
      valid_to_(BuildGauge()
                    .Name(metric_names::kCarbonIntensityValidTo)
                    .Help("End of the current carbon-intensity reading's validity, Unix seconds.")
                    .Register(registry)),
      forecast_mean_(BuildGauge()
                         .Name(metric_names::kForecastMean)
                         .Help("Mean forecast carbon intensity over the next window, gCO2eq/kWh.")
                         .Register(registry)),
      provider_requests_(BuildCounter()
                             .Name(metric_names::kProviderRequests)
                             .Help("Calls to carbon-intensity providers, by outcome.")
                             .Register(registry)),
      cache_lookups_(BuildCounter()
                         .Name(metric_names::kCacheLookups)
                         .Help("Cache lookups; a hit made a provider call unnecessary.")
                         .Register(registry)),
      node_info_(BuildGauge()
                     .Name(metric_names::kNodeInfo)
                     .Help("The grid location and cloud region this node draws power from (=1).")
                     .Register(registry)),
      last_poll_(BuildGauge()
                     .Name(metric_names::kLastPoll)
                     .Help("Unix time at which the last poll of every provider completed.")
                     .Register(registry)
                     .Add({})) {}

void CollectorMetrics::SetIntensity(const SeriesLabels& series, double grams_per_kwh,
                                    bool estimated, absl::Time valid_to) {
  absl::MutexLock lock(&mutex_);
  prometheus::Labels labels = SeriesLabelSet(series);
  auto it = intensity_series_.find(series);
  if (it == intensity_series_.end()) {
    it = intensity_series_.emplace(series, IntensitySeries{nullptr, &valid_to_.Add(labels)}).first;
  }
  labels["estimated"] = estimated ? "true" : "false";
  prometheus::Gauge& value = intensity_.Add(labels);
  if (it->second.value != nullptr && it->second.value != &value) intensity_.Remove(it->second.value);
  it->second.value = &value;
  value.Set(grams_per_kwh);
  it->second.valid_to->Set(absl::ToDoubleSeconds(valid_to - absl::UnixEpoch()));
}

void CollectorMetrics::ClearIntensity(const SeriesLabels& series) {
  absl::MutexLock lock(&mutex_);
  auto it = intensity_series_.find(series);
  if (it == intensity_series_.end()) return;
  if (it->second.value != nullptr) intensity_.Remove(it->second.value);
  valid_to_.Remove(it->second.valid_to);
  intensity_series_.erase(it);
}

void CollectorMetrics::SetForecastMean(const SeriesLabels& series, const std::string& window,
                                       double grams_per_kwh) {
  absl::MutexLock lock(&mutex_);
  prometheus::Gauge*& gauge = forecast_series_[{series, window}];
  if (gauge == nullptr) {
    prometheus::Labels labels = SeriesLabelSet(series);
    labels["window"] = window;
    gauge = &forecast_mean_.Add(labels);
  }
  gauge->Set(grams_per_kwh);
}

void CollectorMetrics::ClearForecastMean(const SeriesLabels& series, const std::string& window) {
  absl::MutexLock lock(&mutex_);
  auto it = forecast_series_.find({series, window});
  if (it == forecast_series_.end()) return;
  forecast_mean_.Remove(it->second);
  forecast_series_.erase(it);
}

void CollectorMetrics::CountProviderRequest(const std::string& provider, const std::string& outcome) {
  provider_requests_.Add({{"provider", provider}, {"outcome", outcome}}).Increment();
}

void CollectorMetrics::CountCacheLookup(bool hit) {
  cache_lookups_.Add({{"outcome", hit ? "hit" : "miss"}}).Increment();
}

void CollectorMetrics::SetNodeInfo(const std::string& node, const std::string& location,
                                   const std::string& region) {
  node_info_.Add({{"node", node}, {"location", location}, {"region", region}}).Set(1);
}

void CollectorMetrics::SetLastPoll(absl::Time t) {
  last_poll_.Set(absl::ToDoubleSeconds(t - absl::UnixEpoch()));
}

}  // namespace carbonroute::exporter
