// File: karmada/karmada_patch.h
//
// Carbon-aware placement for Karmada without a custom scheduler build: from a
// small policy file, pick the N cleanest member clusters and write the
// PropagationPolicy merge patch that sets
// spec.placement.clusterAffinity.clusterNames (Karmada v1alpha1,
// propagation_types.go; with an empty activationPreference the change
// re-drives propagation immediately —
// https://github.com/karmada-io/karmada/blob/master/pkg/apis/policy/v1alpha1/propagation_types.go).
//
// Policy file (YAML):
//   propagationPolicy: {name: web, namespace: default}
//   clusters: [{name: member-be, location: BE}, {name: member-de, location: DE, region:
//   europe-west3}] desiredClusters: 2
//
// Or a policy object as `karmada --controller` reads it from the Karmada API
// server (karmada/carbon_policy.h), in a file beside other objects: a
// CarbonAwareKarmadaPolicy (spec.clusterLocations, desiredClusters,
// karmadaTargetRef) or a CarbonPlacementPolicy with spec.clusters. What only
// the controller can do is refused, naming each field: a latency limit
// (spec.origin, maxRttMs), stickiness (carbonToleranceGramsPerKwh, minStay),
// replicaWeights, every Karmada Cluster (no spec.clusters) and a
// ClusterPropagationPolicy target.
//
// The patch carries the readings it was decided on, in a comment and in the
// annotation carbonroute.io/placement-readings.
//
// Errors: ParseKarmadaPolicy returns kInvalidArgument naming the key and value.
// Thread safety: pure functions.
#ifndef CARBONROUTE_KARMADA_KARMADA_PATCH_H_
#define CARBONROUTE_KARMADA_KARMADA_PATCH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "placement/scoring.h"

namespace carbonroute::karmada {

struct KarmadaPolicy {
  std::string name;
  std::string namespace_name = "default";
  int desired_clusters = 1;
  std::vector<placement::Candidate> clusters;
};

absl::StatusOr<KarmadaPolicy> ParseKarmadaPolicy(absl::string_view yaml, absl::string_view origin);

struct KarmadaPatch {
  std::vector<std::string> cluster_names;  // the chosen clusters, cleanest first
  std::string readings;                    // "member-be=BE:76.96 gCO2eq/kWh (current); ..."
  std::string yaml;                        // for people: comment + patch
  std::string json;                        // for `kubectl patch --type merge -p`
};

// Chooses the first `desired_clusters` feasible entries of `scored` (as ScoreCandidates orders
// them).
KarmadaPatch MakeKarmadaPatch(const KarmadaPolicy& policy,
                              const std::vector<placement::ScoredCandidate>& scored,
                              absl::Time now);

}  // namespace carbonroute::karmada

#endif  // CARBONROUTE_KARMADA_KARMADA_PATCH_H_
