// File: scheduler-lite/commands.h
//
// The scheduler-lite subcommands, one function each (main.cc only parses
// flags). Each writes its answer to `out`, warnings to `err`, and returns the
// process exit code: 0 success, 1 no source could be read / an I/O error,
// 2 bad arguments, 3 nothing satisfied the request (no feasible candidate, no window).
//
// Candidates for rank/explain: `locations` (every grid location with a
// reading), `nodes` (from carbonroute_node_info), `regions` (from the
// region → zone map), or `auto`: nodes when an origin (--from) is given and
// nodes are known, else locations.
#ifndef CARBONROUTE_SCHEDULER_LITE_COMMANDS_H_
#define CARBONROUTE_SCHEDULER_LITE_COMMANDS_H_

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "base/clock.h"
#include "model_sources/model_loader.h"
#include "net/http_client.h"
#include "placement/scoring.h"

namespace carbonroute::scheduler_lite {

struct RankRequest {
  model_sources::ModelSources sources;
  std::string candidates = "auto";  // auto|locations|nodes|regions
  std::vector<std::string> only;    // restrict to these names (--locations / --candidates-list)
  std::string from;                 // origin node or region for the latency limit
  std::optional<double> max_rtt_ms;
  std::optional<absl::Duration> runtime;
  double carbon_weight = 1.0;
  double latency_weight = 0.2;
  std::string format = "table";  // table|json
};

int RankCommand(const RankRequest& request, net::HttpClient& http, Clock& clock, std::ostream& out,
                std::ostream& err);
int ExplainCommand(const RankRequest& request, const std::string& name, net::HttpClient& http,
                   Clock& clock, std::ostream& out, std::ostream& err);

struct WindowRequest {
  std::string collector = "http://127.0.0.1:9464";  // base URL of a collector
  std::string location;
  absl::Duration duration;
  std::string deadline;  // RFC 3339 ("2026-11-23T06:00:00Z") or relative ("+12h")
  std::string format = "table";
};
int WindowCommand(const WindowRequest& request, net::HttpClient& http, Clock& clock,
                  std::ostream& out, std::ostream& err);

struct KarmadaRequest {
  model_sources::ModelSources sources;
  std::string policy_file;
  std::optional<absl::Duration> runtime;
  bool apply = false;  // run `kubectl patch propagationpolicy … --type merge -p <patch>`
};
int KarmadaCommand(const KarmadaRequest& request, net::HttpClient& http, Clock& clock,
                   std::ostream& out, std::ostream& err);

struct ServeRequest {
  model_sources::ModelSources sources;
  std::string listen = "127.0.0.1:8888";
  absl::Duration refresh = absl::Seconds(30);
  double carbon_weight = 1.0;
  double latency_weight = 0.2;
  std::size_t max_body_bytes = 64 << 20;  // full NodeLists of thousands of nodes
  int threads = 4;                        // epoll threads, each serving many connections
  std::string web_config_file;            // net/web_config.h; "" = plain HTTP, no auth
};
// Serves until `stop` is notified.
int ServeCommand(const ServeRequest& request, net::HttpClient& http, Clock& clock,
                 absl::Notification& stop, std::ostream& err);

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_COMMANDS_H_
