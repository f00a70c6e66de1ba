// File: scheduler-lite/rank_command.h
//
// `scheduler-lite rank` (candidates, cleanest first, with scores and reasons)
// and `scheduler-lite explain NAME` (why one candidate scored as it did).
//
// Candidates: `locations` (every grid location with a reading), `nodes` (from
// carbonroute_node_info), `regions` (from the region → zone map), or `auto`:
// nodes when an origin (--from) is given and nodes are known, else locations.
//
// Exit codes (scheduler-lite/subcommand.h): 0 at least one candidate is
// feasible; 1 no source could be read; 2 an unknown name; 3 none is feasible.
#ifndef CARBONROUTE_SCHEDULER_LITE_RANK_COMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_RANK_COMMAND_H_

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "base/clock.h"
#include "model_sources/model_loader.h"
#include "net/http_client.h"
#include "placement/scoring.h"
#include "scheduler-lite/subcommand.h"

namespace carbonroute::scheduler_lite {

struct RankRequest {
  model_sources::ModelSources sources;
  std::string candidates = "auto";        // auto|locations|nodes|regions
  std::vector<std::string> only;          // restrict to these names (--locations)
  std::string from;                       // origin node or region for the latency limit
  std::optional<absl::Duration> max_rtt;  // --max-rtt-ms
  std::optional<absl::Duration> runtime;
  double carbon_weight = placement::kDefaultCarbonWeight;
  double latency_weight = placement::kDefaultLatencyWeight;
  double carbon_tolerance = placement::kDefaultCarbonTolerance;  // gCO2eq/kWh
  std::string format = "table";                                  // table|json
};

int RankCommand(const RankRequest& request, net::HttpClient& http, Clock& clock, std::ostream& out,
                std::ostream& err);
int ExplainCommand(const RankRequest& request, const std::string& name, net::HttpClient& http,
                   Clock& clock, std::ostream& out, std::ostream& err);

std::unique_ptr<Subcommand> NewRankSubcommand();
std::unique_ptr<Subcommand> NewExplainSubcommand();

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_RANK_COMMAND_H_
