// File: routing_controller/destination_rule_target.h
//
// A DestinationRule target of the routing controller (docs/routing.md): GET
// the rule (404: TargetNotFound); refuse it when it sets failover or lacks
// outlierDetection (routing/destination_rule_patch.h); count its Service's
// ready endpoints per locality; plan (routing/route_plan.h), each origin's
// demand its endpoints or the requests Istio measured; with no reading for
// any destination keep the rule as it is (DataMissing); keep a held row
// within minStay or the tolerance (routing/row_stability.h); book the interval
// (target_booker.h); merge-patch its localityLbSetting only when the rows
// differ from what it holds, the first write keeping what it held for the
// finalizer (target_writes.h).
//
// Thread safety: one thread (the controller's pass).
#ifndef CARBONROUTE_ROUTING_CONTROLLER_DESTINATION_RULE_TARGET_H_
#define CARBONROUTE_ROUTING_CONTROLLER_DESTINATION_RULE_TARGET_H_

#include "absl/time/time.h"
#include "placement/placement_model.h"
#include "routing/routing_policy.h"
#include "routing_controller/target_context.h"

namespace carbonroute::routing {

TargetOutcome ReconcileDestinationRule(TargetContext& context, const RoutingPolicy& policy,
                                       const TargetRef& target,
                                       const placement::PlacementModel& model, absl::Time now);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_CONTROLLER_DESTINATION_RULE_TARGET_H_
