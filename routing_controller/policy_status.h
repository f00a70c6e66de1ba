// File: routing_controller/policy_status.h
//
// A CarbonRoutingPolicy's status as the routing controller writes it (a merge
// patch of the status subresource; deploy/kubernetes/crds' schema):
// observedGeneration; per target its kind and name and, when planned, each
// origin's row (every destination's weight, intensity in gCO2eq/kWh, RTT in
// ms and reason); the conditions Ready (Reconciled, or the first target's
// problem), DataMissing, TargetNotFound, FailoverConfigured and
// OutlierDetectionMissing, each with the time its status last changed.
//
// Thread safety: a pure function.
#ifndef CARBONROUTE_ROUTING_CONTROLLER_POLICY_STATUS_H_
#define CARBONROUTE_ROUTING_CONTROLLER_POLICY_STATUS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "routing/routing_policy.h"
#include "routing_controller/target_context.h"

namespace carbonroute::routing {

// When the condition `type` took `status` ("True"/"False"): its lastTransitionTime
// (controller_runtime::StatusWriter::TransitionTime).
using TransitionTimes =
    std::function<absl::Time(const std::string& type, const std::string& status)>;

// The status merge patch, {"status": {...}}, as JSON text.
std::string PolicyStatusBody(const RoutingPolicy& policy,
                             const std::vector<TargetOutcome>& outcomes,
                             const TransitionTimes& since);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_CONTROLLER_POLICY_STATUS_H_
