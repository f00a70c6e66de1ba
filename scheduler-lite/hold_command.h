// File: scheduler-lite/hold_command.h
//
// `scheduler-lite hold`: the controller that holds opted-in Jobs and Pods
// until the cleanest window before their deadline (hold/hold_controller.h;
// README "Waiting in the cluster"). It reads forecasts as `window` does
// (--collector, repeatable, with the client flags every source-reading
// subcommand takes), reaches the API server as node discovery does
// (--kube-api-url, --kube-token-file, --kube-ca-file; a Pod's service
// account by default; plain http:// for a local proxy), selects with
// --selector, elects one acting replica with a Lease when --lease-namespace
// is given, and serves /metrics, /healthz and / on --web.listen-address.
//
// Exit codes: 0 after a stop signal; 1 when the listen address cannot be
// bound; 2 for bad flags (naming the flag), a missing data file, or no API
// endpoint (not in a Pod and no --kube-api-url).
#ifndef CARBONROUTE_SCHEDULER_LITE_HOLD_COMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_HOLD_COMMAND_H_

#include <memory>

#include "scheduler-lite/subcommand.h"

namespace carbonroute::scheduler_lite {

std::unique_ptr<Subcommand> NewHoldSubcommand();

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_HOLD_COMMAND_H_
