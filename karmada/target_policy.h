// File: karmada/target_policy.h
//
// What the controller reads of the PropagationPolicy or
// ClusterPropagationPolicy it places (policy.karmada.io/v1alpha1,
// https://github.com/karmada-io/karmada/blob/master/pkg/apis/policy/v1alpha1/propagation_types.go),
// and the one write it makes to it: a merge patch (RFC 7386) of
// spec.placement.clusterAffinity.clusterNames only (and, for weights,
// spec.placement.replicaScheduling.weightPreference.staticWeightList), so
// fields this controller does not know (labelSelector, fieldSelector,
// exclude, spreadConstraints, ...) are never dropped, as a full PUT of a
// re-encoded object would drop them.
//
// A policy that uses clusterAffinities (plural, ordered failover groups)
// cannot also have clusterAffinity (Karmada's validating webhook refuses
// both); the controller does not place it (`uses_cluster_affinities`).
//
// Errors: ReadTargetPolicy: kInvalidArgument naming the field (json_view.h).
// Thread safety: pure functions.
#ifndef CARBONROUTE_KARMADA_TARGET_POLICY_H_
#define CARBONROUTE_KARMADA_TARGET_POLICY_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kube/json_view.h"

namespace carbonroute::karmada {

// One of spec.resourceSelectors: the resource templates the policy propagates.
struct ResourceSelector {
  std::string api_version;     // "apps/v1"
  std::string kind;            // "Deployment"
  std::string namespace_name;  // "" = the policy's own (a PropagationPolicy's)
  std::string name;            // "" = chosen by labelSelector (not read by the ledger)
};

struct TargetPolicy {
  std::vector<std::string> cluster_names;  // spec.placement.clusterAffinity.clusterNames
  bool uses_cluster_affinities = false;    // spec.placement.clusterAffinities is set
  bool divided = false;   // replicaScheduling.replicaSchedulingType Divided (Karmada's default)
  bool weighted = false;  // ... replicaDivisionPreference Weighted
  std::map<std::string, int64_t> static_weights;     // staticWeightList entries naming one cluster
  std::vector<ResourceSelector> resource_selectors;  // spec.resourceSelectors
};

absl::StatusOr<TargetPolicy> ReadTargetPolicy(const kube::JsonField& object);

// The merge patch that sets clusterNames to `clusters`, and with `weights`
// (non-empty) the Weighted division with one staticWeightList entry per
// cluster (weight ≥ 1, as the API requires).
std::string ClusterNamesPatch(const std::vector<std::string>& clusters,
                              const std::map<std::string, int64_t>& weights);

}  // namespace carbonroute::karmada

#endif  // CARBONROUTE_KARMADA_TARGET_POLICY_H_
