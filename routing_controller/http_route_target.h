// File: routing_controller/http_route_target.h
//
// An HTTPRoute target of the routing controller (docs/routing.md): one origin
// (its Gateway's, the policy's one spec.origins entry); each Service
// backend's ready endpoints per locality (all in its region when the Service
// is labelled topology.kubernetes.io/region); the origin's row split over the
// backends by their endpoints; each backend's weight written by a JSON patch
// (routing/http_route_patch.h) only when it changes, and kept as it is by the
// same rule against flapping as a rule's rows (minStay, the tolerance); the
// first write keeps the weights as they were, for the finalizer. With
// --prometheus, its demand is every request to its backends (all from its one
// origin); the interval is booked against the weights its owner set.
//
// Thread safety: one thread (the controller's pass).
#ifndef CARBONROUTE_ROUTING_CONTROLLER_HTTP_ROUTE_TARGET_H_
#define CARBONROUTE_ROUTING_CONTROLLER_HTTP_ROUTE_TARGET_H_

#include "absl/time/time.h"
#include "placement/placement_model.h"
#include "routing/routing_policy.h"
#include "routing_controller/target_context.h"

namespace carbonroute::routing {

TargetOutcome ReconcileHttpRoute(TargetContext& context, const RoutingPolicy& policy,
                                 const TargetRef& target, const placement::PlacementModel& model,
                                 absl::Time now);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_CONTROLLER_HTTP_ROUTE_TARGET_H_
