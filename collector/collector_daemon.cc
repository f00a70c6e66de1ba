#include "collector/collector_daemon.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "base/build_info.h"
#include "base/status_macros.h"
#include "collector/service_notifier.h"
#include "collector/startup_inputs.h"
#include "keda/keda_publishing.h"
#include "net/curl_http_client.h"
#include "providers/credentials.h"
#include "providers/make_provider.h"

namespace carbonroute::collector {

absl::Status CollectorDaemon::CheckStartup(const CollectorConfig& config, const DataPaths& data,
                                           std::vector<std::string>* unavailable_here) {
  NoHttpClient http;  // providers are built, never called
  for (const ProviderConfig& provider_config : config.providers) {
    absl::StatusOr<std::unique_ptr<providers::Provider>> provider =
        providers::MakeProvider(provider_config, data, http);
    if (provider.ok()) continue;
    absl::Status error = ProviderError(provider.status(), provider_config.name);
    if (unavailable_here == nullptr || !providers::IsMissingCredential(provider.status())) {
      return error;
    }
    for (std::string& missing : providers::MissingCredentials(provider_config)) {
      unavailable_here->push_back(std::move(missing));  // every one, and the rest is checked
    }
  }
  if (config.database != ":memory:") {
    const std::filesystem::path directory =
        std::filesystem::absolute(config.database).parent_path();
    std::error_code error;
    if (!std::filesystem::is_directory(directory, error)) {
      const std::string problem = absl::StrCat("database: the directory \"", directory.string(),
                                               "\" of \"", config.database, "\" does not exist");
      if (unavailable_here == nullptr) return absl::FailedPreconditionError(problem);
      unavailable_here->push_back(problem);
    }
  }
  if (!config.rtt.static_matrix.empty()) {
    std::string matrix;
    CARBONROUTE_RETURN_IF_ERROR(DeclaredRow(config.node, config.rtt, data, matrix).status());
  }
  // No Kubernetes API found (not in a Pod, no kubeconfig here): a configuration
  // made for a cluster, checked on a workstation, is valid but cannot run here.
  auto api_here = [unavailable_here](absl::Status found) {
    if (found.ok() || unavailable_here == nullptr ||
        found.code() != absl::StatusCode::kFailedPrecondition) {
      return found;
    }
    unavailable_here->push_back(std::string(found.message()));
    return absl::OkStatus();
  };
  if (config.rtt.kubernetes.enabled) {
    CARBONROUTE_RETURN_IF_ERROR(api_here(DiscoveryConnection(config).status()));
    CARBONROUTE_RETURN_IF_ERROR(DiscoveryRegionLocations(config, data).status());
    CARBONROUTE_RETURN_IF_ERROR(DiscoveryRegionCoordinates(config, data).status());
  }
  if (!config.publish.keda_configmaps.empty()) {
    CARBONROUTE_RETURN_IF_ERROR(
        api_here(keda::KedaPublishing::Connection(
                     config.publish, {.getenv = [](const char* name) { return std::getenv(name); }})
                     .status()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CollectorDaemon>> CollectorDaemon::Create(
    const CollectorConfig& config, const DataPaths& data, Clock& clock,
    std::unique_ptr<net::HttpClient> http, const net::WebConfig& web) {
  std::unique_ptr<CollectorDaemon> daemon(new CollectorDaemon(clock));
  // Where the Nodes are listed, found first: a mistake there is named before the cache is opened.
  std::optional<kube::KubeConnection> endpoint;
  if (config.rtt.kubernetes.enabled) {
    absl::StatusOr<kube::KubeConnection> found = DiscoveryConnection(config);
    if (!found.ok()) return found.status();
    endpoint = *std::move(found);
  }
  daemon->registry_ = std::make_shared<prometheus::Registry>();
  daemon->metrics_ = std::make_unique<exporter::CollectorMetrics>(*daemon->registry_);
  daemon->readiness_ = std::make_unique<Readiness>(daemon->progress_, *daemon->metrics_,
                                                   clock.Now(), config.poll.first_poll_deadline);
  absl::StatusOr<std::unique_ptr<CarbonSide>> carbon = CarbonSide::Create(
      config, data, clock, std::move(http), *daemon->metrics_, *daemon->registry_);
  if (!carbon.ok()) return carbon.status();
  daemon->carbon_ = *std::move(carbon);
  absl::StatusOr<std::unique_ptr<PeerSet>> peers =
      PeerSet::Create(config, data, clock, *daemon->metrics_, daemon->progress_);
  if (!peers.ok()) return peers.status();
  daemon->peers_ = *std::move(peers);
  if (endpoint) {
    CARBONROUTE_RETURN_IF_ERROR(daemon->BuildDiscovery(config, data, *std::move(endpoint)));
  }
  CollectorDaemon& self = *daemon;
  absl::StatusOr<std::unique_ptr<CollectorEndpoint>> started = CollectorEndpoint::Start(
      config.listen_address, web,
      {.poller = self.carbon_->poller(),
       .store = self.carbon_->store(),
       .metrics = *self.metrics_,
       .registry = self.registry_,
       .carbon_aware_api = self.carbon_->carbon_aware_api(),
       .node_name = [peers = self.peers_.get()] { return peers->node_name(); },
       .readiness = *self.readiness_,
       .clock = clock});
  if (!started.ok()) return started.status();
  daemon->endpoint_ = *std::move(started);
  return daemon;
}

absl::Status CollectorDaemon::BuildDiscovery(const CollectorConfig& config, const DataPaths& data,
                                             kube::KubeConnection endpoint) {
  absl::StatusOr<RegionLocations> regions = DiscoveryRegionLocations(config, data);
  if (!regions.ok()) return regions.status();
  region_locations_ = *std::move(regions);
  absl::StatusOr<RegionCoordinates> coordinates = DiscoveryRegionCoordinates(config, data);
  if (!coordinates.ok()) return coordinates.status();
  region_coordinates_ = *std::move(coordinates);
  absl::StatusOr<std::unique_ptr<net::CurlHttpClient>> curl = net::CurlHttpClient::Create(
      absl::StrCat("carbonroute-collector/", CARBONROUTE_VERSION, " (node discovery)"));
  if (!curl.ok()) return Prefixed(curl.status(), "rtt.discovery.kubernetes");
  discovery_http_ = *std::move(curl);
  spdlog::info("kubernetes discovery: Nodes from {} (peer selection {})", endpoint.Describe(),
               std::string(PeerSelectionModeName(config.rtt.peer_selection.mode)));
  discovery_ = std::make_unique<discovery::NodeDiscovery>(
      discovery::DiscoveryOptionsFrom(config.rtt.kubernetes, std::move(endpoint), config.node.name),
      *discovery_http_, clock_,
      [this](const std::vector<kube::KubeNode>& nodes, const std::optional<kube::KubeNode>& self) {
        peers_->OnDiscovered(nodes, self, region_locations_);
        carbon_->FollowNodeLocations(nodes, region_locations_, region_coordinates_);
      });
  return absl::OkStatus();
}

std::string CollectorDaemon::StatusLine() const {
  return absl::StrCat(carbon_->StatusLine(readiness_->first_poll_done()), peers_->StatusLine());
}

void CollectorDaemon::Run(absl::Notification& stop) {
  ServiceNotifier notifier(
      progress_, [this] { return StatusLine(); }, clock_);
  const std::optional<absl::Duration> watchdog = ServiceNotifier::WatchdogTick();
  if (watchdog) {
    spdlog::info("systemd watchdog: telling systemd every {} while the loops make progress",
                 absl::FormatDuration(*watchdog));
  }
  // At least every kStatusEvery, so that STATUS= follows the first poll soon.
  const absl::Duration tick = std::min(watchdog.value_or(kStatusEvery), kStatusEvery);
  std::thread notifying([&notifier, &stop, tick] { notifier.Run(tick, stop); });
  std::thread probes([this] { peers_->RunProbes(); });
  std::thread discovering, publishing;
  if (discovery_ != nullptr) discovering = std::thread([this, &stop] { discovery_->Run(stop); });
  if (carbon_->publishes())
    publishing = std::thread([this, &stop] { carbon_->RunPublishing(stop); });
  carbon_->RunPolls(stop, progress_, [this] { readiness_->FirstPollDone(); });
  if (publishing.joinable()) publishing.join();
  if (discovering.joinable()) discovering.join();
  peers_->StopProbes();
  probes.join();
  notifying.join();
}

}  // namespace carbonroute::collector
