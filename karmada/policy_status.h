// File: karmada/policy_status.h
//
// The status the controller writes on a policy object, as a merge patch of
// its `status` subresource:
//   activeClusters: [names]                        the carbon-aware-karmada-operator's
//   clusters: [{name, location, isValid,           shape, unchanged: carbonIntensity's
//     carbonIntensity: {units, validFrom,          fields are strings, value "%.2f",
//                       validTo, value}}]          present only while isValid
// and carbonroute's additions (ignored by a client that knows only the seed's):
//   clusters[].rttMs, .reason, .activeSince, .weight
//   observedGeneration
//   conditions: [{type, status, reason, message, lastTransitionTime, observedGeneration}]
//     Ready           True when the target carries the decided placement
//     DataMissing     True when a cluster has no usable reading (or no location)
//     TargetNotFound  True when the target policy does not exist
// No time of the pass itself is written (so an unchanged decision is no
// write); carbonroute_karmada_last_reconcile_timestamp_seconds has it.
// A condition's lastTransitionTime moves only when its status changes
// (https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#typical-status-properties).
//
// units is "gCO2eq/kWh" (carbonroute's collectors convert every provider's
// unit to it); validFrom is when the collector fetched the reading (the
// exported series carry its end, valid_to, not its start).
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_KARMADA_POLICY_STATUS_H_
#define CARBONROUTE_KARMADA_POLICY_STATUS_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "karmada/carbon_policy.h"
#include "karmada/placement_choice.h"

namespace carbonroute::karmada {

struct Condition {
  std::string type;  // Ready, DataMissing, TargetNotFound
  bool status = false;
  std::string reason;  // CamelCase: Placed, DataMissing, InvalidSpec, ...
  std::string message;
};

// The merge patch {"status": {...}} for `policy`. `choice` may be null (no
// decision was made: an invalid spec, a missing target).
std::string StatusPatch(const CarbonPolicy& policy, const PlacementChoice* choice,
                        const std::vector<Condition>& conditions, absl::Time now);

}  // namespace carbonroute::karmada

#endif  // CARBONROUTE_KARMADA_POLICY_STATUS_H_
