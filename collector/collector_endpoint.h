// File: collector/collector_endpoint.h
//
// The collector's HTTP endpoint, over a read-only view of what the daemon
// built (EndpointSources):
//   /metrics   the metrics, Prometheus text format (exporter/metrics_page.h);
//   /healthz   200 "ok" once the first poll has completed, 503 before; a
//              line after "ok" for each series paused by a configuration
//              error (a 401, a zone not in the plan), naming the cause;
//   /livez     200 while every loop keeps its promise, 503 naming the stuck
//              ones (for a liveness probe: no upstream can fail it);
//   /readyz    200 once a reading is exported, the first poll has ended or
//              its deadline passed, and from then on (collector/readiness.h);
//   /          the status page for people (exporter/status_page.h: the RTT
//              pairs as a heatmap, carbon by location), refreshed from
//              /api/v1/status (Status());
//   /api/v1/forecast?location=L  the cached forecast points of every provider
//              polling L (a grid location in any case, or a cloud region of
//              one), from now on (contract/forecast_api.h): 400 without
//              `location`, 404 if no provider polls it, 503 if the cache
//              cannot be read;
//   /emissions/... and /locations  the Carbon Aware SDK's Web API from the
//              cache (carbon_aware/carbon_aware_api.h).
// TLS and Basic auth come from the web config (net/web_config.h).
//
// Errors (Start): HttpServer::Start's, prefixed "starting the HTTP endpoint".
// Ownership: owns the server; borrows what the sources name, which must
// outlive it. Thread safety: the handlers run on the server's threads; the
// sources are safe for that.
#ifndef CARBONROUTE_COLLECTOR_COLLECTOR_ENDPOINT_H_
#define CARBONROUTE_COLLECTOR_COLLECTOR_ENDPOINT_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "base/clock.h"
#include "cache/reading_store.h"
#include "carbon_aware/carbon_aware_api.h"
#include "collector/readiness.h"
#include "exporter/collector_metrics.h"
#include "exporter/status_page.h"
#include "net/http_server.h"
#include "net/web_config.h"
#include "polling/poller.h"
#include "prometheus/registry.h"

namespace carbonroute::collector {

// What the endpoint reads; each borrowed.
struct EndpointSources {
  const polling::Poller& poller;
  cache::ReadingStore& store;
  exporter::CollectorMetrics& metrics;
  std::shared_ptr<prometheus::Registry> registry;
  const carbon_aware::CarbonAwareApi& carbon_aware_api;
  std::function<std::string()> node_name;
  const Readiness& readiness;
  Clock& clock;
};

class CollectorEndpoint {
 public:
  static absl::StatusOr<std::unique_ptr<CollectorEndpoint>> Start(const std::string& listen_address,
                                                                  const net::WebConfig& web,
                                                                  EndpointSources sources);

  int port() const { return server_->port(); }
  bool tls() const { return tls_; }

  net::HttpServerResponse ForecastPage(const net::HttpServerRequest& request) const;
  // What GET /api/v1/status answers: this collector's RTT pairs, and for
  // every polled series the reading exported now, its age, whether the
  // series is paused, and the next 24 h of forecast.
  exporter::StatusSnapshot Status() const;

 private:
  explicit CollectorEndpoint(EndpointSources sources) : sources_(std::move(sources)) {}

  const EndpointSources sources_;
  std::vector<std::pair<std::string, std::string>> links_;  // the status page's: path, description
  bool tls_ = false;
  // Declared last: destroyed first, so no handler runs against freed state.
  std::unique_ptr<net::HttpServer> server_;
};

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_COLLECTOR_ENDPOINT_H_
