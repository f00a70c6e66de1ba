// File: scheduler-lite/rebalance_command.h
//
// `scheduler-lite rebalance --controller`: re-places running Pods of the
// workloads each CarbonRebalancePolicy selects toward cleaner Nodes within
// their latency limits and disruption budgets, by eviction
// (rebalance/rebalance_controller.h; docs/rebalance.md). The model comes from
// the usual sources (the collectors' /metrics or --prometheus); the savings
// ledger books each move under controller="rebalance".
//
// Exit codes: 0 when stopped; 1 a start-up failure (no API server
// configuration, the listen address taken); 2 a usage error (no
// --controller, a flag of the wrong type, an empty --scheduler-name).
#ifndef CARBONROUTE_SCHEDULER_LITE_REBALANCE_COMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_REBALANCE_COMMAND_H_

#include <memory>

#include "scheduler-lite/subcommand.h"

namespace carbonroute::scheduler_lite {

std::unique_ptr<Subcommand> NewRebalanceSubcommand();

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_REBALANCE_COMMAND_H_
