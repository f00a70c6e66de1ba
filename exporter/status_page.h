// File: exporter/status_page.h
//
// A status page for people, as Goldpinger's: GET / answers a small
// self-contained HTML page (exporter/status_page.html: no external asset, so
// it works in offline clusters, over the server's TLS and Basic auth) that
// draws the RTT matrix as a heatmap (sources × targets, colour by RTT, loss
// and declared RTTs marked in text too) and carbon by grid location (the
// value now, a 24-hour forecast sparkline, the reading's age, the provider's
// state). It refreshes itself every `refresh_seconds` from
// GET /api/v1/status, the JSON of a StatusSnapshot:
//
//   {"title": "carbonroute-collector", "node": "n1",
//    "generated_at": "2026-11-26T15:00:00Z", "refresh_seconds": 10,
//    "links": [{"path": "/metrics", "description": "..."}],
//    "rtt": [{"source": "n1", "target": "n2", "method": "measured",
//             "exporter": "", "rtt_ms": 1.25, "loss_ratio": 0}, ...],
//            (exporter: who measured it when not carbonroute, e.g. "goldpinger")
//    "carbon": [{"location": "DE", "provider": "replay",
//                "emissions_type": "average", "grams_per_kwh": 312.5,
//                "estimated": false, "age_seconds": 120, "state": "ok",
//                "forecast": [{"at": "2026-11-26T16:00:00Z",
//                              "grams_per_kwh": 300}, ...]}, ...]}
//
// rtt_ms is null for a measured peer with no fresh RTT (every recent probe
// lost); loss_ratio is null for a declared RTT. Times RFC 3339 UTC.
//
// Ownership: the handlers own copies of what they are given; `snapshot` is
// called on a server thread for each request.
// Thread safety: `snapshot` must be safe to call from any thread.
#ifndef CARBONROUTE_EXPORTER_STATUS_PAGE_H_
#define CARBONROUTE_EXPORTER_STATUS_PAGE_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "contract/forecast_api.h"
#include "net/http_server.h"

namespace carbonroute::exporter {

struct StatusRtt {
  std::string source;
  std::string target;
  std::string method;                // "measured" or "declared"
  std::string exporter;              // who measured it, when not carbonroute ("goldpinger")
  std::optional<double> rtt_ms;      // measured: smoothed, while fresh
  std::optional<double> loss_ratio;  // measured only, 0–1
};

struct StatusCarbon {
  std::string location;
  std::string provider;
  std::string emissions_type;  // "average" or "marginal"
  std::optional<double> grams_per_kwh;
  bool estimated = false;
  std::optional<double> age_seconds;
  std::string state;                    // "ok", "paused until <time>", "stale"
  std::vector<ForecastPoint> forecast;  // the next 24 h, shown by each point's start
};

struct StatusSnapshot {
  std::string title;
  std::string node;
  absl::Time generated_at;
  int refresh_seconds = 10;
  std::vector<std::pair<std::string, std::string>> links;  // path, description
  std::vector<StatusRtt> rtt;
  std::vector<StatusCarbon> carbon;
};

inline constexpr char kStatusApiPath[] = "/api/v1/status";

// The JSON above.
std::string StatusJson(const StatusSnapshot& snapshot);

// The page (the same bytes for every request).
const std::string& StatusPageHtml();

// GET / → the page; GET /api/v1/status → StatusJson(snapshot()).
net::HttpHandler StatusPageHandler();
net::HttpHandler StatusApiHandler(std::function<StatusSnapshot()> snapshot);

}  // namespace carbonroute::exporter

#endif  // CARBONROUTE_EXPORTER_STATUS_PAGE_H_
