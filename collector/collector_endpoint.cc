#include "collector/collector_endpoint.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "base/utc_time.h"
#include "collector/startup_inputs.h"
#include "contract/forecast_api.h"
#include "exporter/metrics_page.h"
#include "net/url.h"
#include "polling/reading_records.h"

namespace carbonroute::collector {

absl::StatusOr<std::unique_ptr<CollectorEndpoint>> CollectorEndpoint::Start(
    const std::string& listen_address, const net::WebConfig& web, EndpointSources sources) {
  std::unique_ptr<CollectorEndpoint> endpoint(new CollectorEndpoint(std::move(sources)));
  const EndpointSources& from = endpoint->sources_;
  net::HttpServerOptions options;
  options.listen_address = listen_address;
  options.routes["/metrics"] = exporter::MetricsPageHandler(
      from.registry, [&from] { from.metrics.RefreshAges(from.clock.Now()); },
      {from.metrics.peer_series()});
  endpoint->links_ = {{"/metrics", "the metrics, Prometheus text format"},
                      {"/healthz", "200 once the first poll is done"},
                      {"/livez", "200 while its loops turn (liveness)"},
                      {"/readyz", "200 once it has a reading to serve (readiness)"},
                      {std::string(forecast_api::kPath) + "?location=DE",
                       "a grid location's cached forecast, JSON"},
                      {"/emissions/forecasts/current?location=DE",
                       "the Carbon Aware SDK's Web API, from the cache"},
                      {"/locations", "the locations that API knows"},
                      {exporter::kStatusApiPath, "this page's data, JSON"}};
  options.routes["/"] = exporter::StatusPageHandler();
  CollectorEndpoint* self = endpoint.get();
  options.routes[exporter::kStatusApiPath] =
      exporter::StatusApiHandler([self] { return self->Status(); });
  options.routes["/healthz"] = [&from](const net::HttpServerRequest&) {
    if (!from.readiness.first_poll_done()) {
      return net::HttpServerResponse{503, "text/plain; charset=utf-8",
                                     "starting: first poll not done\n"};
    }
    // Still 200 (a restart would not mend a credential), but said: a series paused by a
    // configuration error gets no data until someone acts.
    std::string body = "ok\n";
    const absl::Time now = from.clock.Now();
    for (const IntensitySeries& series : from.poller.PolledSeries()) {
      const polling::Poller::Pause pause = from.poller.SeriesPause(series);
      if (pause.until > now && pause.state == polling::SeriesState::kConfigurationError) {
        absl::StrAppend(&body, "configuration_error: provider ", series.provider, " location ",
                        series.location, ": ", pause.reason, "\n");
      }
    }
    return net::HttpServerResponse{200, "text/plain; charset=utf-8", std::move(body)};
  };
  auto probe = [](const ProbeAnswer& answer) {
    return net::HttpServerResponse{answer.ok ? 200 : 503, "text/plain; charset=utf-8",
                                   answer.why + "\n"};
  };
  options.routes["/livez"] = [&from, probe](const net::HttpServerRequest&) {
    return probe(from.readiness.Live(from.clock.Now()));
  };
  options.routes["/readyz"] = [&from, probe](const net::HttpServerRequest&) {
    return probe(from.readiness.Ready(from.clock.Now()));
  };
  options.routes[forecast_api::kPath] = [self](const net::HttpServerRequest& request) {
    return self->ForecastPage(request);
  };
  for (const std::string& path : carbon_aware::CarbonAwareApi::Paths()) {
    options.case_insensitive_routes[path] = [&from](const net::HttpServerRequest& request) {
      carbon_aware::ApiResponse answer = from.carbon_aware_api.Handle(request.path, request.query);
      return net::HttpServerResponse{answer.status, std::move(answer.content_type),
                                     std::move(answer.body)};
    };
  }
  net::ApplyWebConfig(web, options);
  endpoint->tls_ = web.tls.has_value();
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server =
      net::HttpServer::Start(std::move(options));
  if (!server.ok()) return Prefixed(server.status(), "starting the HTTP endpoint");
  endpoint->server_ = *std::move(server);
  return endpoint;
}

net::HttpServerResponse CollectorEndpoint::ForecastPage(
    const net::HttpServerRequest& request) const {
  const std::string asked =
      net::QueryParameter(request.query, forecast_api::kLocationParameter).value_or("");
  if (asked.empty()) {
    return {400, "application/json",
            forecast_api::EncodeError("query parameter location is required, e.g. ?location=DE")};
  }
  // A grid location in any case, or a cloud region of one (as the SDK API takes them).
  absl::StatusOr<std::string> grid = sources_.carbon_aware_api.GridLocationOf(asked);
  if (!grid.ok()) {
    return {404, "application/json", forecast_api::EncodeError(grid.status().message())};
  }
  const absl::Time now = sources_.clock.Now();
  ForecastAnswer answer{*grid, {}};
  for (const IntensitySeries& key : sources_.poller.PolledSeries()) {
    if (key.location != *grid) continue;
    absl::StatusOr<std::vector<cache::IntensityRecord>> points =
        sources_.store.ForecastBetween(key, now, now + polling::kCachedForecastSpan);
    if (!points.ok()) {
      return {503, "application/json", forecast_api::EncodeError(points.status().ToString())};
    }
    ForecastSeries& series = answer.series.emplace_back();
    series.provider = key.provider;
    series.emissions_type = key.emissions_type;
    series.points = polling::IntensityPoints(*points);
  }
  if (answer.series.empty()) {
    return {404, "application/json",
            forecast_api::EncodeError(absl::StrCat("no provider polls location ", *grid))};
  }
  return {200, "application/json", forecast_api::EncodeAnswer(answer)};
}

exporter::StatusSnapshot CollectorEndpoint::Status() const {
  const absl::Time now = sources_.clock.Now();
  exporter::StatusSnapshot status;
  status.title = "carbonroute-collector";
  status.node = sources_.node_name();
  status.generated_at = now;
  // The example links ask for a location this collector polls (the first), not DE whatever it
  // polls; a collector that polls none (the latency role) shows none of them.
  const std::vector<IntensitySeries> polled = sources_.poller.PolledSeries();
  for (const auto& [path, description] : links_) {
    const std::size_t query = path.find("?location=DE");
    if (query == std::string::npos) {
      status.links.emplace_back(path, description);
    } else if (!polled.empty()) {
      status.links.emplace_back(absl::StrCat(path.substr(0, query),
                                             "?location=", net::UrlEncode(polled.front().location)),
                                description);
    }
  }
  for (const exporter::PeerSeriesTable::Link& link : sources_.metrics.RttLinks()) {
    exporter::StatusRtt& rtt = status.rtt.emplace_back();
    rtt.source = link.source;
    rtt.target = link.target;
    rtt.method = link.declared ? "declared" : "measured";
    if (link.rtt.has_value()) rtt.rtt_ms = absl::ToDoubleMilliseconds(*link.rtt);
    if (!link.declared) rtt.loss_ratio = link.loss_ratio;
  }
  const std::map<IntensitySeries, exporter::CollectorMetrics::ExportedReading> exported =
      sources_.metrics.ExportedReadings();
  for (const IntensitySeries& series : sources_.poller.PolledSeries()) {
    exporter::StatusCarbon& row = status.carbon.emplace_back();
    row.location = series.location;
    row.provider = series.provider;
    row.emissions_type = std::string(EmissionsTypeName(series.emissions_type));
    if (auto it = exported.find(series);
        it != exported.end() && it->second.kind == ValueKind::kGramsPerKwh) {
      row.grams_per_kwh = it->second.value;
      row.estimated = it->second.estimated;
      row.age_seconds = it->second.AgeSeconds(now);
    }
    // A pause says why, as the log does: a 401 is not only "paused".
    const polling::Poller::Pause pause = sources_.poller.SeriesPause(series);
    row.state = pause.until > now
                    ? absl::StrCat("paused until ", UtcSeconds(pause.until), ": ",
                                   polling::SeriesStateLabel(pause.state), ": ", pause.reason)
                : row.grams_per_kwh.has_value() ? "ok"
                                                : "stale (no valid reading)";
    absl::StatusOr<std::vector<cache::IntensityRecord>> forecast =
        sources_.store.ForecastBetween(series, now, now + absl::Hours(24));
    if (forecast.ok()) row.forecast = polling::IntensityPoints(*forecast);
  }
  std::sort(status.carbon.begin(), status.carbon.end(),
            [](const exporter::StatusCarbon& a, const exporter::StatusCarbon& b) {
              return std::tie(a.location, a.provider) < std::tie(b.location, b.provider);
            });
  return status;
}

}  // namespace carbonroute::collector
