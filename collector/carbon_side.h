// File: collector/carbon_side.h
//
// The collector's carbon side: the HTTP client, the cache (SQLite), every
// provider behind its account's client-side limiter (providers/call_limiter.h:
// never over the published limits; each monthly budget counts the calls this
// month's earlier runs made, as the cache counted them), the poll loop
// (polling/poller.h), the cache as the Carbon Aware SDK API reads it and that
// API (carbon_aware/carbon_aware_api.h), and the KEDA publisher
// (keda/keda_publishing.h) when publish.keda_configmaps is set.
//
// A provider with `locations: nodes` polls nothing until FollowNodeLocations
// hands it the grid locations of the listed Nodes (collector/node_locations.h).
// A call held back by a limiter is logged once when calls start being held
// and once when they go out again.
//
// Errors (Create): "starting the HTTP client: ...", "opening the cache: ...",
// a provider's build error prefixed `provider "NAME"`, and
// keda::KedaPublishing::Create's. Ownership: owns all it builds; borrows the
// clock and the metrics, which must outlive it. Thread safety: RunPolls and
// RunPublishing each on a thread of their own; the rest from any thread.
#ifndef CARBONROUTE_COLLECTOR_CARBON_SIDE_H_
#define CARBONROUTE_COLLECTOR_CARBON_SIDE_H_

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "base/clock.h"
#include "base/data_files.h"
#include "base/progress_monitor.h"
#include "cache/reading_store.h"
#include "carbon_aware/carbon_aware_api.h"
#include "collector/carbon_aware_data.h"
#include "collector/node_locations.h"
#include "config/collector_config.h"
#include "exporter/collector_metrics.h"
#include "keda/keda_publishing.h"
#include "net/http_client.h"
#include "polling/poller.h"
#include "prometheus/registry.h"
#include "providers/call_limiter.h"
#include "providers/provider.h"

namespace carbonroute::collector {

class CarbonSide {
 public:
  // `http` (may be null: a net::CurlHttpClient is made, or none when no
  // provider calls an API) carries the providers' requests. `registry` gets
  // the KEDA publisher's metrics.
  static absl::StatusOr<std::unique_ptr<CarbonSide>> Create(const CollectorConfig& config,
                                                            const DataPaths& data, Clock& clock,
                                                            std::unique_ptr<net::HttpClient> http,
                                                            exporter::CollectorMetrics& metrics,
                                                            prometheus::Registry& registry);

  // Polls until `stop` (polling::Poller::Run, each loop promising `progress`);
  // `first_poll_done` once every provider has been polled once.
  void RunPolls(absl::Notification& stop, ProgressMonitor& progress,
                std::function<void()> first_poll_done);
  // Keeps the KEDA ConfigMaps current until `stop`; returns at once without them.
  void RunPublishing(absl::Notification& stop);
  bool publishes() const { return keda_ != nullptr; }

  // `locations: nodes`: hands each such provider the grid locations of
  // `nodes` (labels, else the region maps), logging what changed.
  void FollowNodeLocations(const std::vector<kube::KubeNode>& nodes, const RegionLocations& regions,
                           const RegionCoordinates& coordinates);

  // "14 locations (15 series), 2 failing" once the first poll is done
  // (distinct grid locations; the series when some location has several
  // providers; failing: not ok at the end of their last poll), "first poll
  // under way" before, "latency role (no providers)" without providers.
  std::string StatusLine(bool first_poll_done) const;

  bool has_providers() const { return !providers_.empty(); }
  const polling::Poller& poller() const { return *poller_; }
  cache::ReadingStore& store() const { return *store_; }
  const carbon_aware::CarbonAwareApi& carbon_aware_api() const { return *carbon_aware_api_; }

 private:
  CarbonSide(Clock& clock, exporter::CollectorMetrics& metrics)
      : clock_(clock), metrics_(metrics) {}
  absl::Status BuildProviders(const CollectorConfig& config, const DataPaths& data);
  // Each monthly budget counts the calls this month's earlier runs made (the cache's count).
  void SeedMonthlyBudgets();
  // A call through a provider's limiter: the budget gauges, the cache's
  // count, and a log line when calls start or stop being held back.
  void OnLimitedCall(const std::string& provider, const providers::LimitedCall& call);

  Clock& clock_;
  exporter::CollectorMetrics& metrics_;
  std::unique_ptr<net::HttpClient> http_;
  // Provider name → its limited client over http_, one per HTTP provider;
  // declared before the providers that borrow them.
  std::vector<std::pair<std::string, std::unique_ptr<providers::LimitedHttpClient>>> limited_http_;
  absl::Mutex held_mutex_;
  std::set<std::string> held_providers_ ABSL_GUARDED_BY(held_mutex_);  // whose calls are held
  std::unique_ptr<cache::ReadingStore> store_;
  std::vector<std::unique_ptr<providers::Provider>> providers_;
  std::vector<ProviderConfig> node_located_;  // the providers with `locations: nodes`
  std::unique_ptr<polling::Poller> poller_;
  std::unique_ptr<CacheCarbonAwareData> carbon_aware_data_;
  std::unique_ptr<carbon_aware::CarbonAwareApi> carbon_aware_api_;
  std::unique_ptr<keda::KedaPublishing> keda_;      // null without publish.keda_configmaps
  absl::Duration longest_call_ = absl::Minutes(1);  // for the poll loops' promises
  absl::Mutex locations_mutex_;
  // Per `locations: nodes` provider: its locations and unmapped Nodes as last logged.
  std::map<std::string, NodeLocations> logged_locations_ ABSL_GUARDED_BY(locations_mutex_);
};

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_CARBON_SIDE_H_
