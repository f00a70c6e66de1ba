// File: exporter/metrics_page.h
//
// The /metrics route: a registry rendered in the Prometheus text exposition
// format 0.0.4 by prometheus-cpp's TextSerializer, with the standard process
// metrics and carbonroute_build_info (exporter/process_metrics.h); and the
// landing page of GET /.
//
// Memory: the page is written into one string reserved at the previous
// page's size (plus 1/16): one page-sized buffer per scrape (bench/README.md).
//
// Ownership: the handler keeps the registry alive (shared_ptr).
// Thread safety: the handler may run concurrently (Registry::Collect is thread-safe).
#ifndef CARBONROUTE_EXPORTER_METRICS_PAGE_H_
#define CARBONROUTE_EXPORTER_METRICS_PAGE_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/http_server.h"
#include "prometheus/registry.h"

namespace carbonroute::exporter {

// GET /: a small HTML page naming the program and linking `paths` (each with
// a description), as every Prometheus exporter answers its root.
net::HttpHandler LandingPageHandler(const std::string& title,
                                    const std::vector<std::pair<std::string, std::string>>& paths);

// `before_scrape` (may be empty) runs before each page is collected: gauges
// that are true only at the moment of the scrape (ages) are set there.
net::HttpHandler MetricsPageHandler(std::shared_ptr<prometheus::Registry> registry,
                                    std::function<void()> before_scrape = {});

}  // namespace carbonroute::exporter

#endif  // CARBONROUTE_EXPORTER_METRICS_PAGE_H_
