#include "collector/collector_daemon.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "collector/declared_rtt.h"
#include "collector/reading_records.h"
#include "collector/socket_probe_transport.h"
#include "contract/forecast_api.h"
#include "exporter/metrics_page.h"
#include "net/curl_http_client.h"
#include "net/url.h"

namespace carbonroute::collector {
namespace {

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

// This node's row of rtt.static_matrix (REQUIRES: set); `path` receives the file found.
absl::StatusOr<std::vector<DeclaredRtt>> DeclaredRow(const CollectorConfig& config,
                                                     const DataPaths& data, std::string& path) {
  absl::StatusOr<std::string> matrix = FindDataFile(config.rtt.static_matrix, data);
  if (!matrix.ok()) return Prefixed(matrix.status(), "rtt.static_matrix");
  path = *matrix;
  absl::StatusOr<std::vector<DeclaredRtt>> row = DeclaredRttRow(config.node, config.rtt, path);
  if (!row.ok()) return Prefixed(row.status(), "rtt.static_matrix");
  return row;
}

}  // namespace

absl::Status CollectorDaemon::CheckStartup(const CollectorConfig& config, const DataPaths& data) {
  NoHttpClient http;  // providers are built, never called
  for (const ProviderConfig& provider_config : config.providers) {
    absl::StatusOr<std::unique_ptr<providers::Provider>> provider =
        providers::MakeProvider(provider_config, data, http);
    if (!provider.ok()) {
      return ProviderError(provider.status(), provider_config.name);
    }
  }
  if (!config.rtt.static_matrix.empty()) {
    std::string matrix;
    CARBONROUTE_RETURN_IF_ERROR(DeclaredRow(config, data, matrix).status());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CollectorDaemon>> CollectorDaemon::Create(
    const CollectorConfig& config, const DataPaths& data, Clock& clock,
    std::unique_ptr<net::HttpClient> http) {
  std::unique_ptr<CollectorDaemon> daemon(new CollectorDaemon(clock));
  daemon->started_probe_ = config.rtt.probe;
  daemon->started_static_matrix_ = config.rtt.static_matrix;
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
  daemon->http_ = std::move(http);

  absl::StatusOr<std::unique_ptr<cache::ReadingStore>> store =
      cache::ReadingStore::Open(config.database);
  if (!store.ok()) return Prefixed(store.status(), "opening the cache");
  daemon->store_ = *std::move(store);

  std::vector<providers::Provider*> borrowed;
  for (const ProviderConfig& provider_config : config.providers) {
    absl::StatusOr<std::unique_ptr<providers::Provider>> provider =
        providers::MakeProvider(provider_config, data, *daemon->http_);
    if (!provider.ok()) {
      return ProviderError(provider.status(), provider_config.name);
    }
    spdlog::info("provider {} ({}): {} locations", provider_config.name,
                 std::string(ProviderTypeName(provider_config.type)),
                 (*provider)->locations().size());
    borrowed.push_back(provider->get());
    daemon->providers_.push_back(*std::move(provider));
  }

  daemon->registry_ = std::make_shared<prometheus::Registry>();
  daemon->metrics_ = std::make_unique<exporter::CollectorMetrics>(*daemon->registry_);
  daemon->metrics_->SetNodeInfo(config.node.name, config.node.location, config.node.region);
  if (!config.rtt.static_matrix.empty()) {
    std::string matrix;
    absl::StatusOr<std::vector<DeclaredRtt>> row = DeclaredRow(config, data, matrix);
    if (!row.ok()) return row.status();
    for (const DeclaredRtt& entry : *row) {
      daemon->metrics_->SetRtt(config.node.name, entry.target, RttMethod::kDeclared, entry.rtt);
    }
    spdlog::info("declared RTTs to {} of {} peers from {}", row->size(), config.rtt.peers.size(),
                 matrix);
  }
  daemon->poller_ = std::make_unique<Poller>(std::move(borrowed), *daemon->store_,
                                             *daemon->metrics_, config.poll);
  if (absl::Status probes = daemon->StartProber(config); !probes.ok()) return probes;

  daemon->first_poll_done_ = std::make_shared<std::atomic<bool>>(false);
  net::HttpServerOptions server_options;
  server_options.listen_address = config.listen_address;
  server_options.routes["/metrics"] = exporter::MetricsPageHandler(daemon->registry_);
  server_options.routes["/healthz"] =
      [ready = daemon->first_poll_done_](const net::HttpServerRequest&) {
        return ready->load() ? net::HttpServerResponse{200, "text/plain; charset=utf-8", "ok\n"}
                             : net::HttpServerResponse{503, "text/plain; charset=utf-8",
                                                       "starting: first poll not done\n"};
      };
  server_options.routes[forecast_api::kPath] =
      [daemon = daemon.get()](const net::HttpServerRequest& request) {
        return daemon->ForecastPage(request);
      };
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server =
      net::HttpServer::Start(std::move(server_options));
  if (!server.ok()) return Prefixed(server.status(), "starting the HTTP endpoint");
  daemon->server_ = *std::move(server);
  return daemon;
}

net::HttpServerResponse CollectorDaemon::ForecastPage(const net::HttpServerRequest& request) const {
  const std::string location =
      net::QueryParameter(request.query, forecast_api::kLocationParameter).value_or("");
  if (location.empty()) {
    return {400, "application/json",
            forecast_api::EncodeError("query parameter location is required, e.g. ?location=DE")};
  }
  const absl::Time now = clock_.Now();
  ForecastAnswer answer{location, {}};
  for (const std::unique_ptr<providers::Provider>& provider : providers_) {
    const std::vector<std::string>& locations = provider->locations();
    if (std::find(locations.begin(), locations.end(), location) == locations.end()) continue;
    const IntensitySeries key{provider->name(), location, provider->emissions_type()};
    absl::StatusOr<std::vector<cache::IntensityRecord>> points =
        store_->ForecastBetween(key, now, now + absl::Hours(24 * 8));
    if (!points.ok()) {
      return {503, "application/json", forecast_api::EncodeError(points.status().ToString())};
    }
    ForecastSeries& series = answer.series.emplace_back();
    series.provider = provider->name();
    series.emissions_type = provider->emissions_type();
    for (const cache::IntensityRecord& point : *points) {
      if (point.unit != kGramsPerKwhUnit) continue;
      series.points.push_back({point.valid_from, point.valid_to, point.value});
    }
  }
  if (answer.series.empty()) {
    return {404, "application/json",
            forecast_api::EncodeError(absl::StrCat("no provider polls location ", location))};
  }
  return {200, "application/json", forecast_api::EncodeAnswer(answer)};
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
  if (probed.empty()) return absl::OkStatus();
  // ICMP sockets only when an ICMP peer needs them: TCP-only setups need no privilege.
  absl::StatusOr<std::unique_ptr<SocketProbeTransport>> transport =
      SocketProbeTransport::Create(icmp ? std::optional(config.rtt.probe.icmp_mode) : std::nullopt,
                                   static_cast<uint16_t>(getpid()));
  if (!transport.ok()) return Prefixed(transport.status(), "rtt.peers");
  spdlog::info("prober: ICMP mode {}", (*transport)->icmp_mode_description());
  spdlog::info("prober: probing {} peers every {}: {}", probed.size(),
               absl::FormatDuration(config.rtt.probe.interval), absl::StrJoin(probed, ", "));
  transport_ = *std::move(transport);
  icmp_sockets_ = icmp;
  prober_ =
      std::make_unique<Prober>(config.node.name, config.rtt.probe, *transport_, clock_, *metrics_);
  prober_->SetTargets(config.rtt.peers);
  return absl::OkStatus();
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
  if (prober_ != nullptr) prober_->SetTargets(config.rtt.peers);
  spdlog::info("reload: {} probed peers", probed);
  return absl::OkStatus();
}

void CollectorDaemon::Run(absl::Notification& stop) {
  std::thread probes;
  if (prober_ != nullptr) probes = std::thread([this] { prober_->Run(); });
  RunPolls(stop);
  if (prober_ != nullptr) {
    prober_->Stop();
    probes.join();
  }
}

void CollectorDaemon::RunPolls(absl::Notification& stop) {
  poller_->Run(clock_, stop, [this](const PollStats& first) {
    first_poll_done_->store(true);
    spdlog::info("first poll: {} series exported, {} provider calls ({} failed), {} cache hits",
                 first.exported_series, first.provider_calls, first.provider_errors,
                 first.cache_hits);
  });
}

}  // namespace carbonroute::collector
