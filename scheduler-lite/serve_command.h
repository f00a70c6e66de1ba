// File: scheduler-lite/serve_command.h
//
// `scheduler-lite serve`: its flags, their usage errors and the Kubernetes
// connection they name; the daemon is extender/extender_daemon.h (the
// kube-scheduler extender over HTTP, its model rebuilt from its sources every
// --refresh, until SIGINT/SIGTERM).
//
// Exit codes: 0 stopped by a signal; 1 the server could not start; 2 a bad
// --web.config.file (read before any source is asked).
#ifndef CARBONROUTE_SCHEDULER_LITE_SERVE_COMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_SERVE_COMMAND_H_

#include <memory>

#include "scheduler-lite/subcommand.h"

namespace carbonroute::scheduler_lite {

std::unique_ptr<Subcommand> NewServeSubcommand();

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_SERVE_COMMAND_H_
