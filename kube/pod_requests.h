// File: kube/pod_requests.h
//
// What a Pod, or each replica of a workload, asks of a Node: the sum of its
// containers' resources.requests, in base units. A resource a container
// limits without requesting is requested at its limit, as the API server
// defaults it (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/).
// Init containers are left out: they end before the Pod's containers run.
//
// Quantities as the API writes them
// (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/):
// a decimal number with an optional exponent (1e3) or suffix, binary
// (Ki Mi Gi Ti Pi Ei, powers of 1024) or decimal (n u m k M G T P E).
//
// Errors: kInvalidArgument naming the field and the value
// ("spec.template.spec.containers[0].resources.requests.cpu: not a quantity: \"2 cores\"").
// Thread safety: pure functions.
#ifndef CARBONROUTE_KUBE_POD_REQUESTS_H_
#define CARBONROUTE_KUBE_POD_REQUESTS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/json_view.h"

namespace carbonroute::kube {

struct PodRequests {
  double cpu_cores = 0;     // "500m" = 0.5
  double memory_bytes = 0;  // "2Gi" = 2 × 2^30
  double gpus = 0;          // nvidia.com/gpu and amd.com/gpu
};

// A workload's replicas and what each requests.
struct WorkloadRequests {
  int64_t replicas = 1;
  PodRequests per_replica;
};

// The quantity `text` in base units; kInvalidArgument "not a quantity" otherwise.
absl::StatusOr<double> ParseQuantity(absl::string_view text);

// A Pod spec's requests (a Pod's spec, or a template's spec.template.spec).
absl::StatusOr<PodRequests> ReadPodRequests(const JsonField& pod_spec);

// A Deployment's, StatefulSet's or ReplicaSet's spec.replicas (1 when
// absent, as the API defaults it) and its template's requests; a Job's
// spec.parallelism (1 when absent); a Pod's own (one replica).
// kInvalidArgument for another kind, naming it.
absl::StatusOr<WorkloadRequests> ReadWorkloadRequests(const JsonField& object);

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_POD_REQUESTS_H_
