// File: exporter/collector_metrics.h
//
// carbonroute-collector's metrics: typed setters over a prometheus::Registry,
// with the names of contract/metric_names.h. A series that no longer has a
// true value is removed (never left stale, never set to 0).
//
// Ownership: borrows the registry, which must outlive this object.
// Thread safety: all methods are safe to call concurrently.
#ifndef CARBONROUTE_EXPORTER_COLLECTOR_METRICS_H_
#define CARBONROUTE_EXPORTER_COLLECTOR_METRICS_H_

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "contract/intensity_series.h"
#include "contract/metric_labels.h"
#include "contract/value_kind.h"
#include "exporter/peer_series_table.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace carbonroute::exporter {

class CollectorMetrics {
 public:
  explicit CollectorMetrics(prometheus::Registry& registry);

  CollectorMetrics(const CollectorMetrics&) = delete;
  CollectorMetrics& operator=(const CollectorMetrics&) = delete;

  // The reading valid now, as exported.
  struct ExportedReading {
    ValueKind kind = ValueKind::kGramsPerKwh;  // gCO2eq/kWh, or the 0–100 relative signal
    double value = 0;                          // in the unit `kind` names
    bool estimated = false;                    // label estimated="true" (gCO2eq/kWh only)
    absl::Time valid_to;                       // the end of its validity
    absl::Time fetched_at;                     // when the collector got it from the provider

    // Seconds from fetched_at to `now`, 0 when `now` is earlier (the age gauge's value).
    double AgeSeconds(absl::Time now) const {
      return absl::ToDoubleSeconds(std::max(now - fetched_at, absl::ZeroDuration()));
    }
  };
  // Exports `reading` as the series' value, its valid_to and its age at `now`.
  void SetIntensity(const IntensitySeries& series, const ExportedReading& reading, absl::Time now);
  // Sets every age gauge to `now` − its reading's fetched_at (clamped at 0): the
  // /metrics handler calls it before each scrape, so an age keeps growing
  // between polls (through a backoff or a configuration-error pause too).
  void RefreshAges(absl::Time now);
  // Removes the series' intensity, percentile, valid_to and age gauges (no true value is known).
  void ClearIntensity(const IntensitySeries& series);

  // Records the unit the provider answered in for `series` (e.g. "lbs_co2_per_mwh").
  void SetProviderUnits(const IntensitySeries& series, const std::string& units);

  // Exports the mean of the forecast over the next `window` ("1h", "4h", "24h").
  void SetForecastMean(const IntensitySeries& series, const std::string& window,
                       double grams_per_kwh);
  void ClearForecastMean(const IntensitySeries& series, const std::string& window);

  // Removes every series of `series`: intensity, forecast means, units (its
  // location is no longer polled).
  void RemoveSeries(const IntensitySeries& series);
  // How many locations `provider` polls, and how many Nodes it has no code for.
  void SetProviderLocations(const std::string& provider, int locations, int unmapped_nodes);
  // A monthly budget (calls) and what is left of it this month.
  void SetProviderBudget(const std::string& provider, int64_t budget, int64_t left);

  // Counts one provider call with outcome `outcome` ("ok", "not_found", ...).
  void CountProviderRequest(const std::string& provider, const std::string& outcome);
  // carbonroute_provider_series{provider, state} = count.
  void SetProviderSeries(const std::string& provider, const std::string& state, int count);
  // Counts one cache lookup: hit = a stored value made a provider call unnecessary.
  void CountCacheLookup(bool hit);
  // `provider` began answering for `location` in place of `preferred` (a fallback).
  void CountFallback(const std::string& location, const std::string& provider,
                     const std::string& preferred);
  // Counts one failed cache operation (one of metric_labels::kCacheOperations).
  void CountCacheError(const std::string& operation);

  // carbonroute_node_info{node, location, region, zone} = 1; a later call
  // replaces the series of an earlier one (the node's identity learnt late,
  // from the Kubernetes API).
  void SetNodeInfo(const std::string& node, const std::string& location, const std::string& region,
                   const std::string& zone = "");
  // carbonroute_zone_rtt_seconds{source_zone, target_zone}; nullopt removes it.
  void SetZoneRtt(const std::string& source_zone, const std::string& target_zone,
                  std::optional<absl::Duration> rtt);
  // carbonroute_rtt_seconds{source, target, method="declared"}, from the static matrix.
  void SetDeclaredRtt(const std::string& source, const std::string& target, absl::Duration rtt);
  void SetLastPoll(absl::Time t);

  // The probe series of one (source, target) pair (exporter/peer_series_table.h):
  // the measured RTT gauge, the loss ratio, the sent/received counters and the
  // RTT histogram. ProbeSeriesFor creates them on the first call naming the
  // pair (with no sample before the first RecordProbe) and returns the same
  // handle after; the handle stays valid until RemoveProbeTarget of the pair.
  // The prober keeps it, so a probe's update builds no label key.
  using ProbeSeries = PeerSeriesTable::Peer;
  ProbeSeries& ProbeSeriesFor(const std::string& source, const std::string& target);
  // One probe's outcome, `rtt` when answered in time (nullopt: lost), and the
  // target's state after it: the smoothed RTT while fresh (nullopt removes
  // carbonroute_rtt_seconds{method="measured"}) and the loss ratio; a scrape
  // sees all of them or none.
  void RecordProbe(ProbeSeries& series, std::optional<absl::Duration> rtt,
                   std::optional<absl::Duration> smoothed, double loss_ratio);
  // The target's state without a new probe (its smoothed RTT went stale).
  void SetProbeState(ProbeSeries& series, std::optional<absl::Duration> smoothed,
                     double loss_ratio);
  // Deletes every probe series of the pair (a peer removed from the config).
  void RemoveProbeTarget(const std::string& source, const std::string& target);
  // Up to how many peers each peer's RTT histogram is exported (0: never).
  void SetProbeHistogramMaxPeers(std::size_t peers);
  // The per-peer series, for the /metrics page (MetricsPageHandler's sources).
  std::shared_ptr<const ExpositionSource> peer_series() const { return peer_series_; }

  // What the status page shows (exporter/status_page.h): the record of every
  // reading exported now, as SetIntensity was given it (kept here, the one
  // place that knows what is exported, rather than read back from the
  // gauges), and every RTT pair's state.
  std::map<IntensitySeries, ExportedReading> ExportedReadings() const;
  std::vector<PeerSeriesTable::Link> RttLinks() const { return peer_series_->Links(); }

 private:
  struct IntensityGauges {
    prometheus::Gauge* value = nullptr;  // in intensity_ (kGramsPerKwh) or percentile_
    prometheus::Gauge* valid_to = nullptr;
    prometheus::Gauge* age = nullptr;
    ExportedReading exported;  // what `value`, `valid_to` and `age` show
  };
  void RemoveValue(IntensityGauges& series) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  prometheus::Family<prometheus::Gauge>& intensity_;
  prometheus::Family<prometheus::Gauge>& percentile_;
  prometheus::Family<prometheus::Gauge>& valid_to_;
  prometheus::Family<prometheus::Gauge>& age_;
  prometheus::Family<prometheus::Gauge>& units_;
  prometheus::Family<prometheus::Gauge>& forecast_mean_;
  prometheus::Family<prometheus::Counter>& provider_requests_;
  prometheus::Family<prometheus::Gauge>& provider_series_;
  prometheus::Family<prometheus::Gauge>& provider_locations_;
  prometheus::Family<prometheus::Gauge>& provider_unmapped_nodes_;
  prometheus::Family<prometheus::Gauge>& provider_budget_;
  prometheus::Family<prometheus::Gauge>& provider_budget_remaining_;
  prometheus::Family<prometheus::Counter>& cache_lookups_;
  prometheus::Family<prometheus::Counter>& provider_fallbacks_;
  prometheus::Family<prometheus::Counter>& cache_errors_;
  prometheus::Family<prometheus::Gauge>& node_info_;
  prometheus::Gauge* node_info_series_ ABSL_GUARDED_BY(mutex_) = nullptr;
  prometheus::Family<prometheus::Gauge>& zone_rtt_;
  prometheus::Family<prometheus::Gauge>& last_poll_;

  mutable absl::Mutex mutex_;
  std::map<IntensitySeries, IntensityGauges> intensity_series_ ABSL_GUARDED_BY(mutex_);
  std::map<std::pair<IntensitySeries, std::string>, prometheus::Gauge*> forecast_series_
      ABSL_GUARDED_BY(mutex_);
  std::map<IntensitySeries, prometheus::Gauge*> units_series_ ABSL_GUARDED_BY(mutex_);
  const std::shared_ptr<PeerSeriesTable> peer_series_;
};

}  // namespace carbonroute::exporter

#endif  // CARBONROUTE_EXPORTER_COLLECTOR_METRICS_H_
