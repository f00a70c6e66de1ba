// File: routing_controller/target_context.h
//
// What the routing controller's parts share (routing_controller.h composes
// them): its options, the API paths of what it reads and writes, what
// reconciling one target came to (TargetOutcome) and what a target's
// reconcile is given (TargetContext: borrowed from the controller, valid for
// one pass).
//
// Thread safety: one thread (the controller's pass).
#ifndef CARBONROUTE_ROUTING_CONTROLLER_TARGET_CONTEXT_H_
#define CARBONROUTE_ROUTING_CONTROLLER_TARGET_CONTEXT_H_

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kube/kube_client.h"
#include "kube/list_watch.h"
#include "ledger/metered_energy.h"
#include "routing/request_demand.h"
#include "routing/route_plan.h"
#include "routing/routing_policy.h"
#include "routing/service_endpoints.h"

namespace carbonroute::routing {

struct RoutingControllerOptions {
  absl::Duration resync = absl::Minutes(1);
  LocalityLevel level = LocalityLevel::kRegion;
  // Decide as usual; write nothing but Events and the Lease.
  bool dry_run = false;
  // Watch the policies between lists (kube/change_watch.h). Run() only.
  bool watch = false;
  // How long the API server keeps each watch open (timeoutSeconds) before it starts again.
  absl::Duration watch_timeout = kube::kDefaultWatchTimeout;
  // Measured demand (null: each origin's ready endpoints).
  RequestRateSource request_rates;
  // The Service's Pods' measured energy, for the ledger of policies without
  // spec.joulesPerRequest (null: those book nothing; route_ledger.h).
  ledger::PodsMeter pods_meter;
};

// The collection of CarbonRoutingPolicies, and one policy's path.
std::string PoliciesPath();
std::string PolicyPath(const RoutingPolicy& policy);
// The path of the DestinationRule or HTTPRoute `name` in `ns`.
std::string TargetPath(TargetKind kind, const std::string& ns, const std::string& name);

// What reconciling one target came to.
struct TargetOutcome {
  TargetRef target;
  std::string result;  // kRoutingWrites' result
  std::string reason;  // a condition's reason; "" when written or unchanged
  std::string message;
  std::optional<RoutePlan> plan;
};

class RoutingMetrics;
class ServiceDemand;
class TargetBooker;
class TargetWrites;

// What a target's reconcile is given, borrowed from the controller.
struct TargetContext {
  const kube::KubeClient& api;
  const RoutingControllerOptions& options;
  RoutingMetrics& metrics;
  ServiceDemand& demand;
  TargetWrites& writes;
  TargetBooker& booker;
  // "policy uid/target" → origin → when its written row last changed (row_stability.h).
  std::map<std::string, std::map<std::string, absl::Time>>& row_changed;
};

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_CONTROLLER_TARGET_CONTEXT_H_
