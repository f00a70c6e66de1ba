#include "collector/collector_daemon.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "base/utc_time.h"
#include "collector/declared_rtt.h"
#include "collector/reading_records.h"
#include "contract/forecast_api.h"
#include "contract/region_locations.h"
#include "discovery/peer_selection.h"
#include "exporter/metrics_page.h"
#include "kube/kube_connection.h"
#include "net/curl_http_client.h"
#include "net/url.h"
#include "prober/socket_probe_transport.h"
#include "providers/credentials.h"

namespace carbonroute::collector {

using prober::Prober;
using prober::ProberOptions;
using prober::SocketProbeTransport;
namespace {

// The longest one provider call may take: two whole requests (WattTime logs
// in, then asks) for the HTTP providers, a few seconds for the offline ones.
absl::Duration LongestCall(const std::vector<ProviderConfig>& providers) {
  absl::Duration longest = absl::Seconds(5);
  for (const ProviderConfig& provider : providers) {
    if (provider.type == ProviderType::kReplay || provider.type == ProviderType::kStatic) continue;
    longest = std::max(longest, 2 * (provider.http.timeout + provider.http.connect_timeout));
  }
  return longest;
}

absl::Status Prefixed(const absl::Status& status, absl::string_view what) {
  return absl::Status(status.code(), absl::StrCat(what, ": ", status.message()));
}

// The HTTP client of a collector whose providers are all offline (static,
// replay): libcurl and its TLS library are never initialised, which keeps
// ~4 MB of their pages out of the resident set.
class NoHttpClient final : public net::HttpClient {
 public:
  absl::StatusOr<net::HttpResponse> Send(const net::HttpRequest&) override {
    return absl::FailedPreconditionError("no HTTP client: no configured provider calls an API");
  }
};

// A provider's build error, prefixed with `provider "NAME"` unless it says so already.
absl::Status ProviderError(const absl::Status& status, const std::string& name) {
  const std::string prefix = absl::StrCat("provider \"", name, "\"");
  if (absl::StartsWith(status.message(), prefix)) return status;
  return Prefixed(status, prefix);
}

// The row of rtt.static_matrix (REQUIRES: set) from `node` to rtt.peers;
// `path` receives the file found.
absl::StatusOr<std::vector<DeclaredRtt>> DeclaredRow(const NodeConfig& node, const RttConfig& rtt,
                                                     const DataPaths& data, std::string& path) {
  absl::StatusOr<std::string> matrix = FindDataFile(rtt.static_matrix, data);
  if (!matrix.ok()) return Prefixed(matrix.status(), "rtt.static_matrix");
  path = *matrix;
  absl::StatusOr<std::vector<DeclaredRtt>> row = DeclaredRttRow(node, rtt, path);
  if (!row.ok()) return Prefixed(row.status(), "rtt.static_matrix");
  return row;
}

// The Kubernetes API of rtt.discovery.kubernetes (REQUIRES: enabled).
absl::StatusOr<kube::KubeConnection> DiscoveryConnection(const CollectorConfig& config) {
  absl::StatusOr<kube::KubeConnection> connection =
      kube::ResolveKubeConnection(discovery::KubeOptionsFrom(config.rtt.kubernetes),
                                  {.getenv = [](const char* name) { return std::getenv(name); }});
  if (!connection.ok()) return Prefixed(connection.status(), "rtt.discovery.kubernetes");
  return connection;
}

// The region-keyed data file `name` (a `kind` of table) found and read with `parse`
// (ParseRegionLocationsCsv or ParseRegionCoordinatesCsv); errors prefixed with `what`.
absl::StatusOr<RegionLocations> ReadRegionTable(
    const std::string& name, const DataPaths& data, absl::string_view what, absl::string_view kind,
    absl::StatusOr<RegionLocations> (*parse)(absl::string_view, absl::string_view)) {
  absl::StatusOr<std::string> path = FindDataFile(name, data);
  if (!path.ok()) return Prefixed(path.status(), what);
  absl::StatusOr<std::string> csv = ReadFileToString(*path, kind);
  if (!csv.ok()) return Prefixed(csv.status(), what);
  absl::StatusOr<RegionLocations> table = parse(*csv, *path);
  if (!table.ok()) return Prefixed(table.status(), what);
  return table;
}

// rtt.discovery.kubernetes.region_locations, read (REQUIRES: enabled).
absl::StatusOr<RegionLocations> DiscoveryRegionLocations(const CollectorConfig& config,
                                                         const DataPaths& data) {
  return ReadRegionTable(config.rtt.kubernetes.region_locations, data,
                         "rtt.discovery.kubernetes.region_locations", "region → location map",
                         ParseRegionLocationsCsv);
}

// The region → coordinates table, when a WattTime provider takes its locations from the Nodes.
absl::StatusOr<RegionCoordinates> DiscoveryRegionCoordinates(const CollectorConfig& config,
                                                             const DataPaths& data) {
  if (std::none_of(config.providers.begin(), config.providers.end(), [](const auto& provider) {
        return provider.locations_from_nodes && provider.type == ProviderType::kWattTime;
      })) {
    return RegionCoordinates();
  }
  return ReadRegionTable(kRegionCoordinatesFile, data,
                         "WattTime regions of the Nodes (locations: nodes)",
                         "region → coordinates table", ParseRegionCoordinatesCsv);
}

// The names the Carbon Aware SDK API takes: grid locations, and the cloud
// regions of the shipped cloud region table with their coordinates (the
// table missing: without them, logged).
carbon_aware::LocationNames CarbonAwareLocationNames(const DataPaths& data) {
  RegionLocations regions;
  RegionCoordinates coordinates;
  absl::StatusOr<RegionLocations> read =
      ReadRegionTable(kRegionZonesFile, data, "the Carbon Aware SDK API's regions",
                      "region → location map", ParseRegionLocationsCsv);
  if (read.ok()) {
    regions = *std::move(read);
  } else {
    spdlog::warn("{}: the Carbon Aware SDK API takes grid locations only",
                 std::string(read.status().message()));
  }
  absl::StatusOr<RegionCoordinates> located =
      ReadRegionTable(kRegionCoordinatesFile, data, "the Carbon Aware SDK API's regions",
                      "region → coordinates table", ParseRegionCoordinatesCsv);
  if (located.ok()) coordinates = *std::move(located);
  return carbon_aware::LocationNames(std::move(regions), std::move(coordinates));
}

}  // namespace

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
  if (config.rtt.kubernetes.enabled) {
    CARBONROUTE_RETURN_IF_ERROR(DiscoveryConnection(config).status());
    CARBONROUTE_RETURN_IF_ERROR(DiscoveryRegionLocations(config, data).status());
    CARBONROUTE_RETURN_IF_ERROR(DiscoveryRegionCoordinates(config, data).status());
  }
  if (!config.publish.keda_configmaps.empty()) {
    CARBONROUTE_RETURN_IF_ERROR(
        keda::KedaPublishing::Connection(
            config.publish, {.getenv = [](const char* name) { return std::getenv(name); }})
            .status());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CollectorDaemon>> CollectorDaemon::Create(
    const CollectorConfig& config, const DataPaths& data, Clock& clock,
    std::unique_ptr<net::HttpClient> http, const net::WebConfig& web) {
  std::unique_ptr<CollectorDaemon> daemon(new CollectorDaemon(clock));
  daemon->started_probe_ = config.rtt.probe;
  daemon->started_static_matrix_ = config.rtt.static_matrix;
  daemon->data_ = data;
  daemon->rtt_ = config.rtt;
  {
    absl::MutexLock lock(&daemon->peers_mutex_);
    daemon->node_ = config.node;
    daemon->configured_peers_ = config.rtt.peers;
  }
  // Where the Nodes are listed, found first: a mistake there is named before the cache is opened.
  std::optional<kube::KubeConnection> endpoint;
  if (config.rtt.kubernetes.enabled) {
    absl::StatusOr<kube::KubeConnection> found = DiscoveryConnection(config);
    if (!found.ok()) return found.status();
    endpoint = *std::move(found);
  }
  daemon->registry_ = std::make_shared<prometheus::Registry>();
  daemon->metrics_ = std::make_unique<exporter::CollectorMetrics>(*daemon->registry_);
  CARBONROUTE_RETURN_IF_ERROR(daemon->BuildCarbon(config, data, std::move(http)));
  CARBONROUTE_RETURN_IF_ERROR(daemon->BuildLatency(config, data));
  if (endpoint)
    CARBONROUTE_RETURN_IF_ERROR(daemon->BuildDiscovery(config, data, *std::move(endpoint)));
  CARBONROUTE_RETURN_IF_ERROR(daemon->StartEndpoint(config, web));
  return daemon;
}

absl::Status CollectorDaemon::BuildCarbon(const CollectorConfig& config, const DataPaths& data,
                                          std::unique_ptr<net::HttpClient> http) {
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
  http_ = std::move(http);
  absl::StatusOr<std::unique_ptr<cache::ReadingStore>> store =
      cache::ReadingStore::Open(config.database);
  if (!store.ok()) return Prefixed(store.status(), "opening the cache");
  if (!(*store)->moved_aside().empty()) {
    spdlog::warn(
        "the cache \"{}\" was not a usable SQLite database ({}); it was moved aside to \"{}\" "
        "and an empty cache created: readings are fetched from the providers again",
        config.database, (*store)->moved_aside_reason(), (*store)->moved_aside());
  }
  store_ = *std::move(store);
  absl::StatusOr<std::vector<providers::Provider*>> borrowed = BuildProviders(config, data);
  if (!borrowed.ok()) return borrowed.status();
  SeedMonthlyBudgets();
  poller_ = std::make_unique<Poller>(*std::move(borrowed), *store_, *metrics_, config.poll);
  for (const ProviderConfig& provider : node_located_) {
    // None until the first list of Nodes.
    CARBONROUTE_RETURN_IF_ERROR(poller_->SetLocations(provider.name, {}));
  }
  std::vector<IntensitySeries> provider_series;
  for (const std::unique_ptr<providers::Provider>& provider : providers_) {
    provider_series.push_back({provider->name(), "", provider->emissions_type()});
  }
  carbon_aware_data_ =
      std::make_unique<CacheCarbonAwareData>(*store_, *poller_, std::move(provider_series));
  carbon_aware::LocationNames names = CarbonAwareLocationNames(data);
  if (!config.publish.keda_configmaps.empty()) {
    absl::StatusOr<std::unique_ptr<keda::KedaPublishing>> keda = keda::KedaPublishing::Create(
        config.publish, names, !node_located_.empty(), *carbon_aware_data_, clock_,
        {.getenv = [](const char* name) { return std::getenv(name); }}, registry_.get());
    if (!keda.ok()) return keda.status();
    keda_ = *std::move(keda);
  }
  carbon_aware_api_ =
      std::make_unique<carbon_aware::CarbonAwareApi>(*carbon_aware_data_, std::move(names), clock_);
  longest_call_ = LongestCall(config.providers);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<providers::Provider*>> CollectorDaemon::BuildProviders(
    const CollectorConfig& config, const DataPaths& data) {
  std::vector<providers::Provider*> borrowed;
  for (const ProviderConfig& provider_config : config.providers) {
    net::HttpClient* http_client = http_.get();
    if (providers::CallsAnApi(provider_config)) {
      limited_http_.emplace_back(
          provider_config.name,
          std::make_unique<providers::LimitedHttpClient>(
              *http_, providers::PublishedLimits(provider_config), clock_,
              provider_config.type == ProviderType::kWattTime ? "/login" : "",
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
      spdlog::info("provider {} ({}): {} locations", provider_config.name,
                   std::string(ProviderTypeName(provider_config.type)),
                   (*provider)->locations().size());
    }
    borrowed.push_back(provider->get());
    providers_.push_back(*std::move(provider));
  }
  return borrowed;
}

void CollectorDaemon::SeedMonthlyBudgets() {
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
    metrics_->SetProviderBudget(name, limited->limiter().monthly_budget(),
                                limited->limiter().BudgetLeft(clock_.Now()).value_or(0));
  }
}

absl::Status CollectorDaemon::BuildLatency(const CollectorConfig& config, const DataPaths& data) {
  // The carbon role (discovery with peer selection "none") speaks for the cluster's
  // grid locations, not for the Node it runs on: the latency role there exports its node_info.
  exports_node_info_ = !(config.rtt.kubernetes.enabled &&
                         config.rtt.peer_selection.mode == PeerSelectionMode::kNone);
  if (exports_node_info_) {
    metrics_->SetNodeInfo(config.node.name, config.node.location, config.node.region,
                          config.node.zone);
  }
  if (!config.rtt.static_matrix.empty()) {
    std::string matrix;
    absl::StatusOr<std::vector<DeclaredRtt>> row =
        DeclaredRow(config.node, config.rtt, data, matrix);
    if (!row.ok()) return row.status();
    for (const DeclaredRtt& entry : *row) {
      metrics_->SetDeclaredRtt(config.node.name, entry.target, entry.rtt);
    }
    spdlog::info("declared RTTs to {} of {} peers from {}", row->size(), config.rtt.peers.size(),
                 matrix);
  }
  return StartProber(config);
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
        OnDiscovered(nodes, self);
      });
  return absl::OkStatus();
}

absl::Status CollectorDaemon::StartEndpoint(const CollectorConfig& config,
                                            const net::WebConfig& web) {
  first_poll_done_ = std::make_shared<std::atomic<bool>>(false);
  net::HttpServerOptions server_options;
  server_options.listen_address = config.listen_address;
  server_options.routes["/metrics"] = exporter::MetricsPageHandler(
      registry_, [this] { metrics_->RefreshAges(clock_.Now()); }, {metrics_->peer_series()});
  links_ = {{"/metrics", "the metrics, Prometheus text format"},
            {"/healthz", "200 once the first poll is done"},
            {std::string(forecast_api::kPath) + "?location=DE",
             "a grid location's cached forecast, JSON"},
            {"/emissions/forecasts/current?location=DE",
             "the Carbon Aware SDK's Web API, from the cache"},
            {"/locations", "the locations that API knows"},
            {exporter::kStatusApiPath, "this page's data, JSON"}};
  server_options.routes["/"] = exporter::StatusPageHandler();
  server_options.routes[exporter::kStatusApiPath] =
      exporter::StatusApiHandler([this] { return Status(); });
  server_options.routes["/healthz"] = [ready = first_poll_done_](const net::HttpServerRequest&) {
    return ready->load() ? net::HttpServerResponse{200, "text/plain; charset=utf-8", "ok\n"}
                         : net::HttpServerResponse{503, "text/plain; charset=utf-8",
                                                   "starting: first poll not done\n"};
  };
  server_options.routes[forecast_api::kPath] = [this](const net::HttpServerRequest& request) {
    return ForecastPage(request);
  };
  for (const std::string& path : carbon_aware::CarbonAwareApi::Paths()) {
    server_options.case_insensitive_routes[path] =
        [api = carbon_aware_api_.get()](const net::HttpServerRequest& request) {
          carbon_aware::ApiResponse answer = api->Handle(request.path, request.query);
          return net::HttpServerResponse{answer.status, std::move(answer.content_type),
                                         std::move(answer.body)};
        };
  }
  net::ApplyWebConfig(web, server_options);
  tls_ = web.tls.has_value();
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server =
      net::HttpServer::Start(std::move(server_options));
  if (!server.ok()) return Prefixed(server.status(), "starting the HTTP endpoint");
  server_ = *std::move(server);
  return absl::OkStatus();
}

net::HttpServerResponse CollectorDaemon::ForecastPage(const net::HttpServerRequest& request) const {
  const std::string asked =
      net::QueryParameter(request.query, forecast_api::kLocationParameter).value_or("");
  if (asked.empty()) {
    return {400, "application/json",
            forecast_api::EncodeError("query parameter location is required, e.g. ?location=DE")};
  }
  // A grid location in any case, or a cloud region of one (as the SDK API takes them).
  absl::StatusOr<std::string> grid = carbon_aware_api_->GridLocationOf(asked);
  if (!grid.ok()) {
    return {404, "application/json", forecast_api::EncodeError(grid.status().message())};
  }
  const std::string& location = *grid;
  const absl::Time now = clock_.Now();
  ForecastAnswer answer{location, {}};
  for (const std::unique_ptr<providers::Provider>& provider : providers_) {
    const std::vector<std::string> locations = poller_->Locations(provider->name());
    if (std::find(locations.begin(), locations.end(), location) == locations.end()) continue;
    const IntensitySeries key{provider->name(), location, provider->emissions_type()};
    absl::StatusOr<std::vector<cache::IntensityRecord>> points =
        store_->ForecastBetween(key, now, now + kCachedForecastSpan);
    if (!points.ok()) {
      return {503, "application/json", forecast_api::EncodeError(points.status().ToString())};
    }
    ForecastSeries& series = answer.series.emplace_back();
    series.provider = provider->name();
    series.emissions_type = provider->emissions_type();
    series.points = IntensityPoints(*points);
  }
  if (answer.series.empty()) {
    return {404, "application/json",
            forecast_api::EncodeError(absl::StrCat("no provider polls location ", location))};
  }
  return {200, "application/json", forecast_api::EncodeAnswer(answer)};
}

exporter::StatusSnapshot CollectorDaemon::Status() {
  const absl::Time now = clock_.Now();
  exporter::StatusSnapshot status;
  status.title = "carbonroute-collector";
  {
    absl::MutexLock lock(&peers_mutex_);
    status.node = node_.name;
  }
  status.generated_at = now;
  status.links = links_;
  for (const exporter::PeerSeriesTable::Link& link : metrics_->RttLinks()) {
    exporter::StatusRtt& rtt = status.rtt.emplace_back();
    rtt.source = link.source;
    rtt.target = link.target;
    rtt.method = link.declared ? "declared" : "measured";
    if (link.rtt.has_value()) rtt.rtt_ms = absl::ToDoubleMilliseconds(*link.rtt);
    if (!link.declared) rtt.loss_ratio = link.loss_ratio;
  }
  const std::map<IntensitySeries, exporter::CollectorMetrics::ExportedReading> exported =
      metrics_->ExportedReadings();
  for (const std::unique_ptr<providers::Provider>& provider : providers_) {
    for (const std::string& location : poller_->Locations(provider->name())) {
      const IntensitySeries series{provider->name(), location, provider->emissions_type()};
      exporter::StatusCarbon& row = status.carbon.emplace_back();
      row.location = location;
      row.provider = provider->name();
      row.emissions_type = std::string(EmissionsTypeName(provider->emissions_type()));
      if (auto it = exported.find(series);
          it != exported.end() && it->second.kind == ValueKind::kGramsPerKwh) {
        row.grams_per_kwh = it->second.value;
        row.estimated = it->second.estimated;
        row.age_seconds = it->second.AgeSeconds(now);
      }
      const absl::Time paused_until = poller_->SeriesBlockedUntil(series);
      row.state = paused_until > now ? absl::StrCat("paused until ", UtcSeconds(paused_until))
                  : row.grams_per_kwh.has_value() ? "ok"
                                                  : "stale (no valid reading)";
      absl::StatusOr<std::vector<cache::IntensityRecord>> forecast =
          store_->ForecastBetween(series, now, now + absl::Hours(24));
      if (forecast.ok()) row.forecast = IntensityPoints(*forecast);
    }
  }
  std::sort(status.carbon.begin(), status.carbon.end(),
            [](const exporter::StatusCarbon& a, const exporter::StatusCarbon& b) {
              return std::tie(a.location, a.provider) < std::tie(b.location, b.provider);
            });
  return status;
}

absl::Status CollectorDaemon::StartProber(const CollectorConfig& config) {
  std::vector<std::string> probed;
  bool icmp = false;
  for (const PeerConfig& peer : config.rtt.peers) {
    if (peer.address.empty()) continue;
    probed.push_back(peer.location.empty() ? peer.name
                                           : absl::StrCat(peer.name, " (", peer.location, ")"));
    icmp = icmp || peer.protocol == ProbeProtocol::kIcmp;
  }
  // With peer selection "none" (the carbon role), discovery only finds grid locations.
  const bool discovering =
      config.rtt.kubernetes.enabled && config.rtt.peer_selection.mode != PeerSelectionMode::kNone;
  if (discovering) icmp = icmp || config.rtt.kubernetes.protocol == ProbeProtocol::kIcmp;
  if (probed.empty() && !discovering) return absl::OkStatus();
  // ICMP sockets only when an ICMP peer needs them: TCP-only setups need no privilege.
  absl::StatusOr<std::unique_ptr<SocketProbeTransport>> transport =
      SocketProbeTransport::Create(icmp ? std::optional(config.rtt.probe.icmp_mode) : std::nullopt,
                                   static_cast<uint16_t>(getpid()));
  if (!transport.ok()) return Prefixed(transport.status(), "rtt.peers");
  spdlog::info("prober: ICMP mode {}", (*transport)->icmp_mode_description());
  spdlog::info("prober: probing {} configured peers{} every {}: {}", probed.size(),
               discovering ? " and the discovered Nodes" : "",
               absl::FormatDuration(config.rtt.probe.interval), absl::StrJoin(probed, ", "));
  transport_ = *std::move(transport);
  icmp_sockets_ = icmp;
  ProberOptions options;
  options.progress = &progress_;
  metrics_->SetProbeHistogramMaxPeers(
      static_cast<std::size_t>(config.rtt.probe.histogram_max_peers));
  prober_ = std::make_unique<Prober>(config.node.name, config.rtt.probe, *transport_, clock_,
                                     *metrics_, std::move(options));
  prober_->SetTargets(config.rtt.peers);
  if (!config.node.zone.empty()) prober_->SetSourceZone(config.node.zone);
  return absl::OkStatus();
}

void CollectorDaemon::ApplyIdentity(const NodeConfig& node) {
  if (node.region == node_.region && node.zone == node_.zone && node.location == node_.location) {
    return;
  }
  const bool region_learnt = node_.region.empty() && !node.region.empty();
  node_ = node;
  spdlog::info(
      "kubernetes discovery: this node is {} in region \"{}\", zone \"{}\", grid "
      "location \"{}\"",
      node_.name, node_.region, node_.zone, node_.location);
  if (exports_node_info_)
    metrics_->SetNodeInfo(node_.name, node_.location, node_.region, node_.zone);
  if (prober_ != nullptr) prober_->SetSourceZone(node_.zone);
  if (region_learnt && !rtt_.static_matrix.empty()) {
    RttConfig rtt = rtt_;
    rtt.peers = configured_peers_;  // the reloaded ones
    std::string matrix;
    absl::StatusOr<std::vector<DeclaredRtt>> row = DeclaredRow(node_, rtt, data_, matrix);
    if (!row.ok()) {
      spdlog::warn("kubernetes discovery: declared RTTs: {}", row.status().ToString());
      return;
    }
    for (const DeclaredRtt& entry : *row) {
      metrics_->SetDeclaredRtt(node_.name, entry.target, entry.rtt);
    }
  }
}

void CollectorDaemon::OnDiscovered(const std::vector<kube::KubeNode>& nodes,
                                   const std::optional<kube::KubeNode>& self) {
  absl::MutexLock lock(&peers_mutex_);
  if (self) ApplyIdentity(IdentityFromNode(node_, *self, region_locations_));
  FollowNodeLocations(nodes);
  std::vector<PeerConfig> peers = DiscoveredPeers(node_, nodes, rtt_, region_locations_);
  if (nodes.size() != discovered_nodes_ || peers.size() != discovered_peers_.size()) {
    const auto virtual_nodes = std::count_if(
        nodes.begin(), nodes.end(), [](const kube::KubeNode& n) { return n.virtual_node; });
    spdlog::info(
        "kubernetes discovery: {} Nodes, {} probed from here ({}){}", nodes.size(), peers.size(),
        discovery::EffectiveMode(rtt_.peer_selection, nodes.size()) == PeerSelectionMode::kAll
            ? "all"
            : absl::StrCat("sampled: ", rtt_.peer_selection.same_zone, " of this zone, ",
                           rtt_.peer_selection.per_remote_zone, " per other zone"),
        virtual_nodes == 0
            ? ""
            : absl::StrCat("; ", virtual_nodes,
                           " Liqo virtual nodes not probed (their InternalIP is the local "
                           "virtual-kubelet pod; their RTT is the declared matrix's)"));
  }
  discovered_nodes_ = nodes.size();
  discovered_peers_ = std::move(peers);
  if (prober_ != nullptr) prober_->SetTargets(MergePeers(configured_peers_, discovered_peers_));
}

void CollectorDaemon::FollowNodeLocations(const std::vector<kube::KubeNode>& nodes) {
  for (const ProviderConfig& provider : node_located_) {
    NodeLocations found = LocationsOfNodes(provider, nodes, region_locations_, region_coordinates_);
    NodeLocations& logged = logged_locations_[provider.name];
    if (found.codes != logged.codes) {
      std::vector<std::string> names;
      for (const auto& [location, code] : found.codes) {
        names.push_back(code == location ? location : absl::StrCat(location, " (", code, ")"));
      }
      spdlog::info("provider {}: {} grid locations from {} Nodes: {}", provider.name,
                   found.codes.size(), nodes.size(), absl::StrJoin(names, ", "));
    }
    for (const auto& [node, why] : found.unmapped) {
      if (!logged.unmapped.contains(node)) {
        spdlog::warn("provider {}: Node {} is not polled: {}", provider.name, node, why);
      }
    }
    if (found.unmapped.size() != logged.unmapped.size()) {
      spdlog::info("provider {}: {} Nodes without a location code", provider.name,
                   found.unmapped.size());
    }
    poller_->SetLocations(provider.name, found.codes, static_cast<int>(found.unmapped.size()))
        .IgnoreError();  // the provider exists: it was built from the same configuration
    logged = std::move(found);
  }
}

void CollectorDaemon::OnLimitedCall(const std::string& provider,
                                    const providers::LimitedCall& call) {
  if (call.budget_left) {
    metrics_->SetProviderBudget(provider, call.monthly_budget, *call.budget_left);
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

absl::Status CollectorDaemon::ReloadPeers(const CollectorConfig& config) {
  std::size_t probed = 0;
  for (const PeerConfig& peer : config.rtt.peers) {
    if (peer.address.empty()) continue;
    ++probed;
    if (prober_ == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "rtt.peers: peer \"", peer.name,
          "\" has an address, but the collector started with no probed peer; restart it to probe"));
    }
    if (peer.protocol == ProbeProtocol::kIcmp && !icmp_sockets_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "rtt.peers: peer \"", peer.name,
          "\" uses ICMP, but the collector started with TCP peers only and has no ICMP socket; "
          "restart it"));
    }
  }
  if (!(config.rtt.probe == started_probe_) || config.rtt.static_matrix != started_static_matrix_) {
    spdlog::warn("reload: rtt.probe and rtt.static_matrix changes apply after a restart");
  }
  {
    absl::MutexLock lock(&peers_mutex_);
    configured_peers_ = config.rtt.peers;
    if (prober_ != nullptr) prober_->SetTargets(MergePeers(configured_peers_, discovered_peers_));
  }
  spdlog::info("reload: {} probed peers configured", probed);
  return absl::OkStatus();
}

std::string CollectorDaemon::StatusLine() const {
  int series = 0, failing = 0;
  for (const auto& [provider, counts] : poller_->SeriesStates()) {
    for (SeriesState state : kAllSeriesStates) {
      const int count = counts[static_cast<std::size_t>(state)];
      series += count;
      if (state != SeriesState::kOk) failing += count;
    }
  }
  std::string line = "first poll under way";
  if (providers_.empty()) {
    line = "latency role (no providers)";
  } else if (first_poll_done_->load()) {
    // Distinct grid locations; the series (provider × location) when some
    // location has several providers. providers_ is fixed after Create.
    std::set<std::string> locations;
    for (const std::unique_ptr<providers::Provider>& provider : providers_) {
      for (std::string& location : poller_->Locations(provider->name())) {
        locations.insert(std::move(location));
      }
    }
    const std::size_t distinct = locations.size();
    line = absl::StrCat(distinct, distinct == 1 ? " location" : " locations");
    if (static_cast<std::size_t>(series) != distinct)
      absl::StrAppend(&line, " (", series, " series)");
    absl::StrAppend(&line, ", ", failing, " failing");
  }
  if (prober_ != nullptr) {
    const Prober::PeerCounts peers = prober_->peer_counts();
    absl::StrAppend(&line, ", ", peers.peers, peers.peers == 1 ? " peer (" : " peers (",
                    peers.fresh, " answering)");
  }
  return line;
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
  std::thread probes, discovering, publishing;
  if (prober_ != nullptr) probes = std::thread([this] { prober_->Run(); });
  if (discovery_ != nullptr) discovering = std::thread([this, &stop] { discovery_->Run(stop); });
  if (keda_ != nullptr) publishing = std::thread([this, &stop] { keda_->Run(stop); });
  RunPolls(stop);
  if (publishing.joinable()) publishing.join();
  if (discovering.joinable()) discovering.join();
  if (prober_ != nullptr) {
    prober_->Stop();
    probes.join();
  }
  notifying.join();
}

void CollectorDaemon::RunPolls(absl::Notification& stop) {
  poller_->Run(
      clock_, stop,
      [this](const PollStats& first) {
        first_poll_done_->store(true);
        spdlog::info("first poll: {} series exported, {} provider calls ({} failed), {} cache hits",
                     first.exported_series, first.provider_calls, first.provider_errors,
                     first.cache_hits);
      },
      &progress_, longest_call_);
}

}  // namespace carbonroute::collector
