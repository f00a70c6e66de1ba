// File: scheduler-lite/window_command.h
//
// `scheduler-lite window`: the best start time for a job of a given duration
// at one grid location before a deadline, from the collector's forecast API
// (contract/forecast_api.h) and placement/best_window.h.
//
// Exit codes: 0 a window was found; 1 the collector could not be read; 2 bad
// arguments (a deadline in the past or leaving no room, a location the
// collector does not poll); 3 no window (the forecast does not cover one).
#ifndef CARBONROUTE_SCHEDULER_LITE_WINDOW_COMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_WINDOW_COMMAND_H_

#include <memory>
#include <ostream>
#include <string>

#include "absl/time/time.h"
#include "base/clock.h"
#include "model_sources/metrics_source.h"
#include "net/http_client.h"
#include "scheduler-lite/subcommand.h"

namespace carbonroute::scheduler_lite {

struct WindowRequest {
  std::string collector = "http://127.0.0.1:9464";  // base URL of a collector
  std::string location;
  absl::Duration duration;
  std::string deadline;  // RFC 3339 ("2026-11-23T06:00:00Z") or relative ("+12h")
  std::string format = "table";
  model_sources::SourceAuth auth;  // the collector's TLS and credentials (--ca-file, ...)
};
int WindowCommand(const WindowRequest& request, net::HttpClient& http, Clock& clock,
                  std::ostream& out, std::ostream& err);

std::unique_ptr<Subcommand> NewWindowSubcommand();

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_WINDOW_COMMAND_H_
