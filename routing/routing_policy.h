// File: routing/routing_policy.h
//
// CarbonRoutingPolicy (carbonroute.io/v1alpha1, namespaced; its schema:
// deploy/kubernetes/routing/crd-carbonroutingpolicies.yaml), read from the
// object the API server returns or from `scheduler-lite route --policy FILE`
// (kube/json_view.h; docs/routing.md):
//   spec.targetRefs[] {group, kind, name}   what it steers, in its namespace
//                                           (Gateway API policy attachment):
//                                           networking.istio.io DestinationRule,
//                                           gateway.networking.k8s.io HTTPRoute
//   spec.maxRttMs                           no destination farther than this from
//                                           the origin (ms, > 0; absent: no limit)
//   spec.carbonToleranceGramsPerKwh         the scoring's band (≥ 0)
//   spec.minStay                            a destination stays in or out of a row
//                                           at least this long (a Go duration)
//   spec.headroomPercent                    capacity = endpoints × (1 + this/100) (≥ 0)
//   spec.joulesPerRequest                   declared energy of a request (> 0)
//   spec.localities[] {locality, location, region, capacity}
//                                           destinations the cluster cannot see,
//                                           or what it knows of one it can
//                                           (capacity in endpoints)
//   spec.origins[] {locality, location, region, demand}
//                                           client localities without endpoints
//                                           (demand in endpoints' worth, default 1)
// A locality is Istio's "region/*" or "region/zone/*" (a bare "region" is read
// as "region/*"); its cloud region is its first part unless `region` says
// otherwise; its grid location comes from the region through the region map
// unless `location` says it.
//
// A spec the controller cannot act on is not an error of the read: the policy
// comes back with `invalid` naming the field and the value, for its status.
// Only an object without metadata.name is an error (kInvalidArgument).
//
// Thread safety: pure functions and plain values.
#ifndef CARBONROUTE_ROUTING_ROUTING_POLICY_H_
#define CARBONROUTE_ROUTING_ROUTING_POLICY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "contract/api_names.h"
#include "kube/json_view.h"

namespace carbonroute::routing {

inline constexpr const char* kPolicyGroupVersion = api_names::kGroupVersion;
inline constexpr char kPolicyKind[] = "CarbonRoutingPolicy";
inline constexpr char kPolicyPlural[] = "carbonroutingpolicies";
// The policy's finalizer: the rules and routes it wrote get back what they held before it
// goes (the name says rules: it was first given for them alone).
inline constexpr char kRestoreFinalizer[] = "carbonroute.io/restore-destination-rules";

enum class TargetKind { kDestinationRule, kHttpRoute };

struct TargetRef {
  TargetKind kind = TargetKind::kDestinationRule;
  std::string name;
  // "DestinationRule shop/web".
  std::string Describe(const std::string& namespace_name) const;
};

// A destination or origin locality as the policy names it.
struct PolicyLocality {
  std::string locality;          // "europe-west1/*"
  std::string region;            // "europe-west1"
  std::string location;          // "" → from the region
  std::optional<double> amount;  // capacity (localities[]) or demand (origins[]), endpoints
};

struct RoutingPolicy {
  std::string namespace_name, name, uid;
  int64_t generation = 0;
  std::vector<TargetRef> targets;
  std::optional<absl::Duration> max_rtt;
  double carbon_tolerance = 0;  // gCO2eq/kWh
  absl::Duration min_stay = absl::ZeroDuration();
  double headroom_percent = 0;
  std::optional<double> joules_per_request;
  std::vector<PolicyLocality> localities;
  std::vector<PolicyLocality> origins;
  std::string invalid;  // why the spec cannot be acted on; "" when it can
  // metadata.finalizers, and whether metadata.deletionTimestamp is set (it is
  // being deleted and waits for its finalizers).
  std::vector<std::string> finalizers;
  bool deleting = false;

  // "CarbonRoutingPolicy shop/web".
  std::string Describe() const;
};

absl::StatusOr<RoutingPolicy> ReadRoutingPolicy(const kube::JsonField& object);

// A locality's region, its first part: "europe-west1" for "europe-west1/*" or
// "europe-west1/europe-west1-b/*".
std::string LocalityRegion(const std::string& locality);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_ROUTING_POLICY_H_
