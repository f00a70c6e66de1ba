// File: kube/pod_eviction.h
//
// A Pod evicted through the Eviction API (POST
// /api/v1/namespaces/{namespace}/pods/{name}/eviction with a policy/v1
// Eviction; https://kubernetes.io/docs/concepts/scheduling-eviction/api-eviction/),
// the way kubectl drain and the descheduler move Pods: the API server refuses
// an eviction that would break a PodDisruptionBudget, and the Pod's
// controller makes its replacement.
//
// The answer, told apart:
//   201 (or 200)  kEvicted: the Pod is being deleted (its grace period holds);
//   429           kBlockedByPdb when the answer names a disruption budget (its
//                 details.causes[].type DisruptionBudget, or the message
//                 "Cannot evict pod as it would violate the pod's disruption
//                 budget."); else kThrottled (API Priority and Fairness: "Too
//                 many requests"). Either is tried again later;
//   404           kGone: the Pod went first;
//   anything else, or no answer: kFailed (a 403 names the RBAC rule:
//                 create pods/eviction).
//
// Thread safety: as the client's (safe for concurrent use).
#ifndef CARBONROUTE_KUBE_POD_EVICTION_H_
#define CARBONROUTE_KUBE_POD_EVICTION_H_

#include <string>

#include "absl/strings/string_view.h"
#include "kube/kube_client.h"

namespace carbonroute::kube {

enum class EvictionOutcome { kEvicted, kBlockedByPdb, kThrottled, kGone, kFailed };

struct EvictionAnswer {
  EvictionOutcome outcome = EvictionOutcome::kFailed;
  std::string message;  // the API server's, or the transport's error
};

EvictionAnswer Evict(const KubeClient& api, const std::string& namespace_name,
                     const std::string& pod_name);

// Reads a 429's body: whether it is a PodDisruptionBudget's refusal.
bool RefusedByDisruptionBudget(absl::string_view body);

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_POD_EVICTION_H_
