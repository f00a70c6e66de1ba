// File: scheduler-lite/karmada_command.h
//
// `scheduler-lite karmada`, two modes:
//   --controller  a long-running controller against the Karmada API server
//                 (karmada/karmada_controller.h): CarbonAwareKarmadaPolicy and
//                 CarbonPlacementPolicy objects, re-ranked every --resync and
//                 at once on a change, a Lease, /metrics and /healthz on
//                 --web.listen-address. Exit 0 when stopped (SIGTERM); 1 when
//                 its server cannot listen; 2 for a usage error.
//   --policy F    one shot, for scripts: a PropagationPolicy clusterNames patch naming the
//                 N cleanest member clusters (karmada/karmada_patch.h), printed, and with --apply
//                 sent as a merge patch to the Karmada API server through kube/ (the
//                 kubeconfig flags of command_flags.h's KubeFlags; no kubectl needed).
//
// One-shot exit codes: 0 a patch; 1 no source could be read, or the API server refused
// the patch (its typed error: 401, 403 naming the RBAC rule, 404); 2 a missing
// or malformed policy file, or no Kubernetes API configured for --apply; 3 no
// cluster is feasible.
#ifndef CARBONROUTE_SCHEDULER_LITE_KARMADA_COMMAND_H_
#define CARBONROUTE_SCHEDULER_LITE_KARMADA_COMMAND_H_

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "absl/time/time.h"
#include "base/clock.h"
#include "kube/kube_connection.h"
#include "model_sources/model_loader.h"
#include "net/http_client.h"
#include "scheduler-lite/subcommand.h"

namespace carbonroute::scheduler_lite {

struct KarmadaRequest {
  model_sources::ModelSources sources;
  std::string policy_file;
  std::optional<absl::Duration> runtime;
  bool apply = false;                        // PATCH the PropagationPolicy with the merge patch
  std::optional<kube::KubeConnection> kube;  // where, with --apply
};
int KarmadaCommand(const KarmadaRequest& request, net::HttpClient& http, Clock& clock,
                   std::ostream& out, std::ostream& err);

std::unique_ptr<Subcommand> NewKarmadaSubcommand();

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_KARMADA_COMMAND_H_
