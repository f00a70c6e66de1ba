#include "exporter/status_page.h"

#include <nlohmann/json.hpp>

#include "base/utc_time.h"
#include "exporter/status_page_html.h"

namespace carbonroute::exporter {
namespace {

using Json = nlohmann::ordered_json;

Json Optional(const std::optional<double>& value) {
  return value.has_value() ? Json(*value) : Json(nullptr);
}

}  // namespace

std::string StatusJson(const StatusSnapshot& snapshot) {
  Json links = Json::array();
  for (const auto& [path, description] : snapshot.links) {
    links.push_back({{"path", path}, {"description", description}});
  }
  Json rtt = Json::array();
  for (const StatusRtt& link : snapshot.rtt) {
    rtt.push_back({{"source", link.source},
                   {"target", link.target},
                   {"method", link.method},
                   {"exporter", link.exporter},
                   {"rtt_ms", Optional(link.rtt_ms)},
                   {"loss_ratio", Optional(link.loss_ratio)}});
  }
  Json carbon = Json::array();
  for (const StatusCarbon& row : snapshot.carbon) {
    Json forecast = Json::array();
    for (const ForecastPoint& point : row.forecast) {
      forecast.push_back({{"at", UtcSeconds(point.valid_from)}, {"grams_per_kwh", point.value}});
    }
    carbon.push_back({{"location", row.location},
                      {"provider", row.provider},
                      {"emissions_type", row.emissions_type},
                      {"grams_per_kwh", Optional(row.grams_per_kwh)},
                      {"estimated", row.estimated},
                      {"age_seconds", Optional(row.age_seconds)},
                      {"state", row.state},
                      {"forecast", std::move(forecast)}});
  }
  return Json{{"title", snapshot.title},
              {"node", snapshot.node},
              {"generated_at", UtcSeconds(snapshot.generated_at)},
              {"refresh_seconds", snapshot.refresh_seconds},
              {"links", std::move(links)},
              {"rtt", std::move(rtt)},
              {"carbon", std::move(carbon)}}
      .dump();
}

const std::string& StatusPageHtml() {
  static const std::string* const page = new std::string(kStatusPageHtml);
  return *page;
}

net::HttpHandler StatusPageHandler() {
  return [](const net::HttpServerRequest&) {
    return net::HttpServerResponse{200, "text/html; charset=utf-8", StatusPageHtml()};
  };
}

net::HttpHandler StatusApiHandler(std::function<StatusSnapshot()> snapshot) {
  return [snapshot = std::move(snapshot)](const net::HttpServerRequest&) {
    return net::HttpServerResponse{200, "application/json", StatusJson(snapshot())};
  };
}

}  // namespace carbonroute::exporter
