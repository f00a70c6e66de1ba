// File: karmada/carbon_policy.h
//
// The two policy kinds the Karmada controller reconciles, read from the
// objects the Karmada API server returns (kube/json_view.h):
//
// CarbonAwareKarmadaPolicy (carbonaware.rossf7.github.io/v1alpha1, the
// carbon-aware-karmada-operator's CRD, read as it is,
// https://github.com/rossf7/carbon-aware-karmada-operator api/v1alpha1):
//   spec.clusterLocations[] {name, location}   member cluster → grid location
//   spec.desiredClusters                       how many to choose (≥ 1)
//   spec.karmadaTarget                         propagationpolicies.policy.karmada.io or
//                                              clusterpropagationpolicies.policy.karmada.io
//   spec.karmadaTargetRef {name, namespace}    the policy to place (namespace ignored for
//                                              a ClusterPropagationPolicy)
// CarbonPlacementPolicy (carbonroute.io/v1alpha1, carbonroute's superset;
// deploy/karmada/crd-carbonplacementpolicies.yaml is its schema):
//   spec.targetRef {kind: PropagationPolicy|ClusterPropagationPolicy, name, namespace}
//   spec.desiredClusters
//   spec.clusters[] {name, location, region}   optional: absent, every Karmada Cluster
//   spec.origin, spec.maxRttMs                  a latency limit (a cluster name or region)
//   spec.carbonToleranceGramsPerKwh             stickiness: stay while within this (≥ 0)
//   spec.minStay                                stickiness: a Go duration ("30m", "1h")
//   spec.replicaWeights                         write staticWeightList weights (Divided)
//
// A spec the controller cannot act on is not an error of the read: the
// policy is returned with `invalid` saying why (field and value), so the
// controller can write that in its status. Only an object without
// metadata.name is an error (kInvalidArgument, the field's path).
//
// Thread safety: pure functions and plain values.
#ifndef CARBONROUTE_KARMADA_CARBON_POLICY_H_
#define CARBONROUTE_KARMADA_CARBON_POLICY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kube/json_view.h"
#include "placement/scoring.h"

namespace carbonroute::karmada {

enum class PolicyKind { kCarbonAwareKarmadaPolicy, kCarbonPlacementPolicy };
enum class TargetKind { kPropagationPolicy, kClusterPropagationPolicy };

// What the API calls a policy kind: its group/version, plural and kind.
struct KindNames {
  const char* group_version;  // "carbonroute.io/v1alpha1"
  const char* plural;         // "carbonplacementpolicies"
  const char* kind;           // "CarbonPlacementPolicy"
};
const KindNames& NamesOf(PolicyKind kind);
const KindNames& NamesOf(TargetKind kind);
// The collection of every object of the kind, in every namespace.
std::string CollectionPath(PolicyKind kind);
std::string CollectionPath(TargetKind kind);
// One object: namespaced kinds need `ns`; a ClusterPropagationPolicy ignores it.
std::string ObjectPath(PolicyKind kind, const std::string& ns, const std::string& name);
std::string ObjectPath(TargetKind kind, const std::string& ns, const std::string& name);

// The status this controller wrote last (what carries over a restart).
struct PreviousStatus {
  std::vector<std::string> active_clusters;
  std::map<std::string, absl::Time> active_since;       // cluster → chosen since (activeSince)
  std::map<std::string, absl::Time> condition_since;    // condition type → lastTransitionTime
  std::map<std::string, std::string> condition_status;  // condition type → "True"/"False"
};

struct CarbonPolicy {
  PolicyKind kind = PolicyKind::kCarbonPlacementPolicy;
  std::string namespace_name, name, uid;
  int64_t generation = 0;

  TargetKind target_kind = TargetKind::kPropagationPolicy;
  std::string target_name, target_namespace;
  int desired_clusters = 1;
  // Member clusters as scoring takes them: name, grid location ("" → from the
  // region), cloud region ("" when not known).
  std::vector<placement::Candidate> clusters;
  bool clusters_from_karmada = false;  // no spec.clusters: every Karmada Cluster object

  std::string origin;                     // "" without a latency limit
  std::optional<absl::Duration> max_rtt;  // spec.maxRttMs, with `origin`
  double carbon_tolerance = 0;            // gCO2eq/kWh
  absl::Duration min_stay = absl::ZeroDuration();
  bool replica_weights = false;

  PreviousStatus previous;
  std::string invalid;  // why the spec cannot be acted on; "" when it can

  // "CarbonPlacementPolicy default/web".
  std::string Describe() const;
};

absl::StatusOr<CarbonPolicy> ReadCarbonPolicy(PolicyKind kind, const kube::JsonField& object);

}  // namespace carbonroute::karmada

#endif  // CARBONROUTE_KARMADA_CARBON_POLICY_H_
