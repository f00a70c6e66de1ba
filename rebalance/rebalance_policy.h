// File: rebalance/rebalance_policy.h
//
// carbonroute's CarbonRebalancePolicy (carbonroute.io/v1alpha1, namespaced;
// the CRD: deploy/helm/carbonroute/crds/crd-carbonrebalancepolicies.yaml;
// docs/rebalance.md), as the API returns it. Its spec:
//   selector.matchLabels        the workloads it re-places, by their own
//                               labels (every workload of the namespace when
//                               empty or absent);
//   workloadKinds               Deployment, StatefulSet, ReplicaSet (default:
//                               all three); a Pod is its workload's when its
//                               controller is one (a ReplicaSet's owner
//                               Deployment when it has one);
//   carbonToleranceGramsPerKwh  a Node counts as cleaner only by more than
//                               this (gCO2eq/kWh; default 50);
//   minStay                     that gap must have lasted this long, and a Pod
//                               run this long on its Node, before it moves
//                               (default 30m);
//   horizon                     the saving a move is expected to earn is
//                               counted over this (default 4h);
//   maxMovesPerPeriod, period   at most this many evictions per period
//                               (defaults 1 and 1h);
//   joulesPerStart              the energy of one restart, J (else the power
//                               model × startupTime);
//   startupTime                 how long a replacement runs before it serves
//                               (default 30s), for the power model's price;
//   allowLocalStorage           Pods with emptyDir volumes may move (their
//                               data is lost; default false).
// Durations are Go's (absl::ParseDuration) or days and weeks
// (base/duration_text.h), down to seconds ("5s" in the tests).
//
// Errors: ReadRebalancePolicy returns kInvalidArgument only when the object
// has no metadata.name; a spec that cannot be read is kept with `invalid`
// naming the first field and its value (the controller reports it in the
// status and moves nothing for it).
// Thread safety: values and pure functions.
#ifndef CARBONROUTE_REBALANCE_REBALANCE_POLICY_H_
#define CARBONROUTE_REBALANCE_REBALANCE_POLICY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "contract/api_names.h"
#include "kube/json_view.h"

namespace carbonroute::rebalance {

inline constexpr const char* kPolicyGroupVersion = api_names::kGroupVersion;
inline constexpr char kPolicyKind[] = "CarbonRebalancePolicy";
inline constexpr char kPolicyPlural[] = "carbonrebalancepolicies";

// The workload kinds a policy may select (and the only owners a moved Pod may have).
inline constexpr const char* kWorkloadKinds[] = {"Deployment", "StatefulSet", "ReplicaSet"};

struct RebalancePolicy {
  std::string namespace_name, name, uid;
  int64_t generation = 0;
  std::map<std::string, std::string> match_labels;
  std::set<std::string> workload_kinds = {"Deployment", "StatefulSet", "ReplicaSet"};
  double carbon_tolerance = 50;  // gCO2eq/kWh
  absl::Duration min_stay = absl::Minutes(30);
  absl::Duration horizon = absl::Hours(4);
  int64_t max_moves_per_period = 1;
  absl::Duration period = absl::Hours(1);
  std::optional<double> joules_per_start;
  absl::Duration startup_time = absl::Seconds(30);
  bool allow_local_storage = false;
  std::string invalid;  // "" when the spec is usable

  // "CarbonRebalancePolicy shop/web".
  std::string Describe() const;
  // Whether a workload of `kind` with `labels` is this policy's.
  bool Selects(const std::string& kind, const std::map<std::string, std::string>& labels) const;
};

absl::StatusOr<RebalancePolicy> ReadRebalancePolicy(const kube::JsonField& object);

// "/apis/carbonroute.io/v1alpha1/carbonrebalancepolicies", and one policy's path.
std::string PoliciesPath();
std::string PolicyPath(const RebalancePolicy& policy);

}  // namespace carbonroute::rebalance

#endif  // CARBONROUTE_REBALANCE_REBALANCE_POLICY_H_
