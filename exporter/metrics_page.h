// File: exporter/metrics_page.h
//
// The /metrics route: a registry rendered in the Prometheus text exposition
// format 0.0.4 (each family by AppendFamily, exporter/text_exposition.h), with the standard process
// metrics and carbonroute_build_info (exporter/process_metrics.h) and the
// families of any ExpositionSource (exporter/text_exposition.h: the
// collector's per-peer series); and the landing page of GET /.
//
// Streamed: the handler collects the registry and takes each source's
// snapshot when the request comes, then the page is written a family (or
// about kPieceBytes of a source) at a time as the client reads it
// (net::BodyStream; gzip piece by piece, net/gzip_body.h), so a scrape's
// memory is the registry's collected families, the snapshots and one piece,
// never the whole page (bench/README.md, "A scrape at 10,000 peers").
//
// Ownership: the handler keeps the registry and the sources alive (shared_ptr).
// Thread safety: the handler may run concurrently (Registry::Collect and
// ExpositionSource::Snapshot are thread-safe).
#ifndef CARBONROUTE_EXPORTER_METRICS_PAGE_H_
#define CARBONROUTE_EXPORTER_METRICS_PAGE_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exporter/text_exposition.h"
#include "net/http_server.h"
#include "prometheus/registry.h"

namespace carbonroute::exporter {

// GET /: a small HTML page naming the program and linking `paths` (each with
// a description), as every Prometheus exporter answers its root.
net::HttpHandler LandingPageHandler(const std::string& title,
                                    const std::vector<std::pair<std::string, std::string>>& paths);

// `before_scrape` (may be empty) runs before each page is collected: gauges
// that are true only at the moment of the scrape (ages) are set there.
net::HttpHandler MetricsPageHandler(
    std::shared_ptr<prometheus::Registry> registry, std::function<void()> before_scrape = {},
    std::vector<std::shared_ptr<const ExpositionSource>> sources = {});

}  // namespace carbonroute::exporter

#endif  // CARBONROUTE_EXPORTER_METRICS_PAGE_H_
