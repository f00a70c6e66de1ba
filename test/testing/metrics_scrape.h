// File: test/testing/metrics_scrape.h
//
// A scrape of a registry's /metrics page as the daemons serve it: the page
// exporter::MetricsPageHandler streams (with carbonroute_build_info, which it
// adds to the registry), read whole. Header-only: its users link carbonroute::exporter.
#ifndef CARBONROUTE_TEST_TESTING_METRICS_SCRAPE_H_
#define CARBONROUTE_TEST_TESTING_METRICS_SCRAPE_H_

#include <memory>
#include <string>
#include <vector>

#include "exporter/metrics_page.h"
#include "net/http_server.h"
#include "prometheus/registry.h"

namespace carbonroute::testing {

inline std::string ScrapeMetricsPage(
    prometheus::Registry& registry,
    std::vector<std::shared_ptr<const exporter::ExpositionSource>> sources = {}) {
  // The handler shares ownership of its registry; this one belongs to the test.
  std::shared_ptr<prometheus::Registry> borrowed(std::shared_ptr<void>(), &registry);
  const net::HttpServerResponse response =
      exporter::MetricsPageHandler(borrowed, {}, std::move(sources))(net::HttpServerRequest{});
  std::string page = response.body;
  if (response.stream != nullptr) {
    char piece[16384];
    while (const std::size_t n = response.stream->Read(piece, sizeof(piece))) {
      page.append(piece, n);
    }
  }
  return page;
}

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_METRICS_SCRAPE_H_
