// File: contract/istio_labels.h
//
// The label names carbonroute reads on Istio's standard metric
// istio_requests_total (https://istio.io/latest/docs/reference/config/metrics/),
// as a Prometheus scrape of the sidecars leaves them: Istio's own
// source_workload_namespace, and the client Pod's name and namespace as the
// usual Kubernetes service discovery relabeling names them (`pod`,
// `namespace`; older configurations `kubernetes_pod_name`,
// `kubernetes_namespace`). routing/request_demand.h reads them; its PromQL
// text names them too.
//
// Thread safety: constants.
#ifndef CARBONROUTE_CONTRACT_ISTIO_LABELS_H_
#define CARBONROUTE_CONTRACT_ISTIO_LABELS_H_

namespace carbonroute::istio_labels {

inline constexpr char kPod[] = "pod";
inline constexpr char kKubernetesPodName[] = "kubernetes_pod_name";
inline constexpr char kNamespace[] = "namespace";
inline constexpr char kKubernetesNamespace[] = "kubernetes_namespace";
inline constexpr char kSourceWorkloadNamespace[] = "source_workload_namespace";

}  // namespace carbonroute::istio_labels

#endif  // CARBONROUTE_CONTRACT_ISTIO_LABELS_H_
