// File: scheduler-lite/karmada_command.h
//
// `scheduler-lite karmada`: a PropagationPolicy clusterNames patch naming the
// N cleanest member clusters (karmada_patch.h), printed, or applied with
// kubectl (--apply).
//
// Exit codes: 0 a patch; 1 no source could be read, or kubectl failed; 2 a
// missing or malformed policy file; 3 no cluster is feasible.
#ifndef CARBONROUTE_SCHEDULER_LITE_KARMADA_COMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_KARMADA_COMMAND_H_

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "absl/time/time.h"
#include "base/clock.h"
#include "model_sources/model_loader.h"
#include "net/http_client.h"
#include "scheduler-lite/subcommand.h"

namespace carbonroute::scheduler_lite {

struct KarmadaRequest {
  model_sources::ModelSources sources;
  std::string policy_file;
  std::optional<absl::Duration> runtime;
  bool apply = false;  // run `kubectl patch propagationpolicy … --type merge -p <patch>`
};
int KarmadaCommand(const KarmadaRequest& request, net::HttpClient& http, Clock& clock,
                   std::ostream& out, std::ostream& err);

std::unique_ptr<Subcommand> NewKarmadaSubcommand();

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_KARMADA_COMMAND_H_
