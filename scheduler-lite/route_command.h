// File: scheduler-lite/route_command.h
//
// `scheduler-lite route --policy FILE`: one shot, for scripts and to try a
// CarbonRoutingPolicy before deploying it (docs/routing.md). FILE (YAML, one
// or more documents, or JSON) holds the CarbonRoutingPolicy as it would be
// applied (routing/routing_policy.h) and, optionally, the DestinationRules it
// targets as `kubectl get -o yaml` shows them. Offline, the policy's
// spec.localities[] stand for the Service's endpoints (capacity: ready
// endpoints, default 1). The model comes from the usual sources (the
// collectors' /metrics or --prometheus, the RTT sources); the plan
// (routing/route_plan.h) is printed with each origin's shares, weights,
// intensities, RTTs and reasons as comments, then the merge patch of each
// targeted DestinationRule (routing/destination_rule_patch.h); `--format
// json` prints only the patch, for `kubectl patch destinationrule NAME --type
// merge -p "$(...)"`.
//
// Exit codes: 0 a patch; 1 no source could be read; 2 a missing or malformed
// file, a policy the controller could not act on (the field and the value),
// no CarbonRoutingPolicy in it; 3 nothing to write (no destination has a
// reading, or the DestinationRule given sets failover or lacks
// outlierDetection: the message says which).
#ifndef CARBONROUTE_SCHEDULER_LITE_ROUTE_COMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_ROUTE_COMMAND_H_

#include <memory>

#include "scheduler-lite/subcommand.h"

namespace carbonroute::scheduler_lite {

std::unique_ptr<Subcommand> NewRouteSubcommand();

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_ROUTE_COMMAND_H_
