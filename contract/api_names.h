// File: contract/api_names.h
//
// carbonroute's names in the Kubernetes API that more than one room uses: its
// API group's version (the CRDs of deploy/kubernetes/crds: CarbonPlacementPolicy,
// CarbonRoutingPolicy) and the annotation by which a user states a workload's
// expected runtime (read by the extender from a Pod, by hold from a Job or Pod;
// docs/scheduler-lite.md). Names one room alone uses stay in that room.
//
// Thread safety: constants.
#ifndef CARBONROUTE_CONTRACT_API_NAMES_H_
#define CARBONROUTE_CONTRACT_API_NAMES_H_

namespace carbonroute::api_names {

inline constexpr char kGroupVersion[] = "carbonroute.io/v1alpha1";
// A duration such as "2h": how long the workload runs once started.
inline constexpr char kExpectedRuntimeAnnotation[] = "carbonroute.io/expected-runtime";

}  // namespace carbonroute::api_names

#endif  // CARBONROUTE_CONTRACT_API_NAMES_H_
