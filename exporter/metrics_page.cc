#include "exporter/metrics_page.h"

#include "prometheus/text_serializer.h"

namespace carbonroute::exporter {

HttpHandler MetricsPageHandler(std::shared_ptr<prometheus::Registry> registry) {
  return [registry = std::move(registry)](const HttpServerRequest&) {
    return HttpServerResponse{200, "text/plain; version=0.0.4; charset=utf-8",
                              prometheus::TextSerializer().Serialize(registry->Collect())};
  };
}

}  // namespace carbonroute::exporter
