#include "collector/carbon_side.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/build_info.h"
#include "base/counted.h"
#include "base/status_macros.h"
#include "collector/startup_inputs.h"
#include "net/curl_http_client.h"
#include "providers/make_provider.h"

namespace carbonroute::collector {

absl::StatusOr<std::unique_ptr<CarbonSide>> CarbonSide::Create(
    const CollectorConfig& config, const DataPaths& data, Clock& clock,
    std::unique_ptr<net::HttpClient> http, exporter::CollectorMetrics& metrics,
    prometheus::Registry& registry) {
  std::unique_ptr<CarbonSide> side(new CarbonSide(clock, metrics));
  if (http == nullptr &&
      std::none_of(config.providers.begin(), config.providers.end(), providers::CallsAnApi)) {
    http = std::make_unique<NoHttpClient>();
  }
  if (http == nullptr) {
    absl::StatusOr<std::unique_ptr<net::CurlHttpClient>> curl =
        net::CurlHttpClient::Create(absl::StrCat("carbonroute-collector/", CARBONROUTE_VERSION));
    if (!curl.ok()) return Prefixed(curl.status(), "starting the HTTP client");
    http = *std::move(curl);
  }
  side->http_ = std::move(http);
  absl::StatusOr<std::unique_ptr<cache::ReadingStore>> store =
      cache::ReadingStore::Open(config.database);
  if (!store.ok()) return Prefixed(store.status(), "opening the cache");
  if (!(*store)->moved_aside().empty()) {
    spdlog::warn(
        "the cache \"{}\" was not a usable SQLite database ({}); it was moved aside to \"{}\" "
        "and an empty cache created: readings are fetched from the providers again",
        config.database, (*store)->moved_aside_reason(), (*store)->moved_aside());
  } else if (absl::StatusOr<int64_t> kept = (*store)->CountReadings(); kept.ok() && *kept > 0) {
    // A restart answers from these while they are valid: no provider call for them.
    spdlog::info("the cache \"{}\" holds {} readings from earlier runs", config.database, *kept);
  }
  side->store_ = *std::move(store);
  CARBONROUTE_RETURN_IF_ERROR(side->BuildProviders(config, data));
  side->SeedMonthlyBudgets();
  std::vector<providers::Provider*> borrowed;
  for (const auto& provider : side->providers_) borrowed.push_back(provider.get());
  side->poller_ =
      std::make_unique<polling::Poller>(std::move(borrowed), *side->store_, metrics, config.poll);
  for (const ProviderConfig& provider : side->node_located_) {
    // None until the first list of Nodes.
    CARBONROUTE_RETURN_IF_ERROR(side->poller_->SetLocations(provider.name, {}));
  }
  side->carbon_aware_data_ = std::make_unique<CacheCarbonAwareData>(*side->store_, *side->poller_);
  carbon_aware::LocationNames names = CarbonAwareLocationNames(data);
  if (!config.publish.keda_configmaps.empty()) {
    absl::StatusOr<std::unique_ptr<keda::KedaPublishing>> keda = keda::KedaPublishing::Create(
        config.publish, names, !side->node_located_.empty(), *side->carbon_aware_data_, clock,
        {.getenv = [](const char* name) { return std::getenv(name); }}, &registry);
    if (!keda.ok()) return keda.status();
    side->keda_ = *std::move(keda);
  }
  side->carbon_aware_api_ = std::make_unique<carbon_aware::CarbonAwareApi>(
      *side->carbon_aware_data_, std::move(names), clock);
  side->longest_call_ = LongestCall(config.providers);
  return side;
}

absl::Status CarbonSide::BuildProviders(const CollectorConfig& config, const DataPaths& data) {
  for (const ProviderConfig& provider_config : config.providers) {
    net::HttpClient* http_client = http_.get();
    if (providers::CallsAnApi(provider_config)) {
      limited_http_.emplace_back(
          provider_config.name,
          std::make_unique<providers::LimitedHttpClient>(
              *http_, providers::PublishedLimits(provider_config), clock_,
              [this, name = provider_config.name](const providers::LimitedCall& call) {
                OnLimitedCall(name, call);
              }));
      http_client = limited_http_.back().second.get();
    }
    absl::StatusOr<std::unique_ptr<providers::Provider>> provider =
        providers::MakeProvider(provider_config, data, *http_client);
    if (!provider.ok()) return ProviderError(provider.status(), provider_config.name);
    if (provider_config.locations_from_nodes) {
      node_located_.push_back(provider_config);
      spdlog::info("provider {} ({}): the grid locations of the cluster's Nodes",
                   provider_config.name, std::string(ProviderTypeName(provider_config.type)));
    } else {
      spdlog::info("provider {} ({}): {}", provider_config.name,
                   std::string(ProviderTypeName(provider_config.type)),
                   Counted((*provider)->locations().size(), "location"));
    }
    providers_.push_back(*std::move(provider));
  }
  return absl::OkStatus();
}

void CarbonSide::SeedMonthlyBudgets() {
  for (const auto& [name, limited] : limited_http_) {
    if (limited->limiter().monthly_budget() <= 0) continue;
    // The calls this month's earlier runs sent count against the budget too.
    const absl::Time month = providers::CalendarMonthStart(clock_.Now());
    absl::StatusOr<int64_t> sent = store_->ProviderCalls(name, month);
    if (sent.ok()) {
      limited->limiter().SeedMonth(month, *sent);
    } else {
      spdlog::warn(
          "provider {}: this month's calls could not be read from the cache ({}); the monthly "
          "budget counts from now",
          name, sent.status().ToString());
    }
    metrics_.SetProviderBudget(name, limited->limiter().monthly_budget(),
                               limited->limiter().BudgetLeft(clock_.Now()).value_or(0));
  }
}

void CarbonSide::OnLimitedCall(const std::string& provider, const providers::LimitedCall& call) {
  if (call.budget_left) {
    metrics_.SetProviderBudget(provider, call.monthly_budget, *call.budget_left);
    if (!call.held) {  // kept in the cache, so that a restart does not start the month afresh
      absl::Status counted =
          store_->CountProviderCalls(provider, providers::CalendarMonthStart(call.at), 1);
      if (!counted.ok()) {
        spdlog::debug("provider {}: call not counted in the cache: {}", provider,
                      counted.ToString());
      }
    }
  }
  absl::MutexLock lock(&held_mutex_);
  if (call.held && held_providers_.insert(provider).second) {
    spdlog::warn("provider {}: calls held back by the client-side limit ({}); next call in {}",
                 provider, call.why, absl::FormatDuration(call.retry_after));
  } else if (!call.held && held_providers_.erase(provider) > 0) {
    spdlog::info("provider {}: calls go out again within the client-side limits", provider);
  }
}

void CarbonSide::RunPolls(absl::Notification& stop, ProgressMonitor& progress,
                          std::function<void()> first_poll_done) {
  // Calls in flight end with the collector, not at their upstream's timeout.
  for (auto& [name, client] : limited_http_) client->CancelWhen(stop);
  poller_->Run(
      clock_, stop,
      [done = std::move(first_poll_done)](const polling::PollStats& first) {
        if (done) done();
        spdlog::info("first poll: {} series exported, {} provider calls ({} failed), {} cache hits",
                     first.exported_series, first.provider_calls, first.provider_errors,
                     first.cache_hits);
      },
      &progress, longest_call_);
}

void CarbonSide::RunPublishing(absl::Notification& stop) {
  if (keda_ != nullptr) keda_->Run(stop);
}

void CarbonSide::FollowNodeLocations(const std::vector<kube::KubeNode>& nodes,
                                     const RegionLocations& regions,
                                     const RegionCoordinates& coordinates) {
  absl::MutexLock lock(&locations_mutex_);
  for (const ProviderConfig& provider : node_located_) {
    NodeLocations found = LocationsOfNodes(provider, nodes, regions, coordinates);
    NodeLocations& logged = logged_locations_[provider.name];
    if (found.codes != logged.codes) {
      std::vector<std::string> names;
      for (const auto& [location, code] : found.codes) {
        names.push_back(code == location ? location : absl::StrCat(location, " (", code, ")"));
      }
      spdlog::info("provider {}: {} from {}: {}", provider.name,
                   Counted(found.codes.size(), "grid location"), Counted(nodes.size(), "Node"),
                   absl::StrJoin(names, ", "));
    }
    for (const auto& [node, why] : found.unmapped) {
      if (!logged.unmapped.contains(node)) {
        spdlog::warn("provider {}: Node {} is not polled: {}", provider.name, node, why);
      }
    }
    if (found.unmapped.size() != logged.unmapped.size()) {
      spdlog::info("provider {}: {} without a location code", provider.name,
                   Counted(found.unmapped.size(), "Node"));
    }
    poller_->SetLocations(provider.name, found.codes, static_cast<int>(found.unmapped.size()))
        .IgnoreError();  // the provider exists: it was built from the same configuration
    logged = std::move(found);
  }
}

std::string CarbonSide::StatusLine(bool first_poll_done) const {
  if (providers_.empty()) return "latency role (no providers)";
  if (!first_poll_done) return "first poll under way";
  int series = 0, failing = 0;
  for (const auto& [provider, counts] : poller_->SeriesStates()) {
    for (polling::SeriesState state : polling::kAllSeriesStates) {
      const int count = counts[static_cast<std::size_t>(state)];
      series += count;
      if (state != polling::SeriesState::kOk) failing += count;
    }
  }
  std::set<std::string> locations;
  for (IntensitySeries& polled : poller_->PolledSeries()) {
    locations.insert(std::move(polled.location));
  }
  const std::size_t distinct = locations.size();
  std::string line = absl::StrCat(distinct, distinct == 1 ? " location" : " locations");
  if (static_cast<std::size_t>(series) != distinct)
    absl::StrAppend(&line, " (", series, " series)");
  absl::StrAppend(&line, ", ", failing, " failing");
  return line;
}

}  // namespace carbonroute::collector
