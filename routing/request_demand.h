// File: routing/request_demand.h
//
// Each origin locality's demand measured, not assumed: the requests per
// second a Service receives from clients in each locality, from Istio's
// standard request counter (istio_requests_total,
// https://istio.io/latest/docs/reference/config/metrics/) in Prometheus.
// Istio's metrics carry no locality, so a client's locality is its Pod's
// Node's (the topology labels, kube/kube_node.h):
//
//   1. RequestRateQuery: per client Pod, the rate over the last 5 minutes of
//      the requests its sidecar (or gateway) reported sending to the Service,
//        sum by (namespace, pod, kubernetes_namespace, kubernetes_pod_name,
//                source_workload_namespace) (rate(istio_requests_total{
//          reporter="source", destination_service_name="NAME",
//          destination_service_namespace="NS"}[5m]))
//      (reporter="source": the client's proxy reports it, so the series
//      carries the client Pod as its scrape target: `pod` and `namespace`
//      under the Prometheus Operator's PodMonitor and Istio's sample scrape
//      configuration, `kubernetes_pod_name` and `kubernetes_namespace` under
//      older ones; the namespace falls back to source_workload_namespace);
//   2. ReadClientRates: the answer's samples, one rate per client Pod;
//   3. DemandByLocality: each Pod's rate at its Node's locality ("region/*"
//      or "region/zone/*", as the endpoints are counted).
// A sample without a Pod label, or a Pod whose Node or region is unknown,
// adds to `unattributed` / `unlocated` (said in the policy's status), never
// to a locality it might not be in.
//
// Errors: none (what cannot be read is counted aside).
// Thread safety: pure functions.
#ifndef CARBONROUTE_ROUTING_REQUEST_DEMAND_H_
#define CARBONROUTE_ROUTING_REQUEST_DEMAND_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kube/kube_node.h"
#include "model_sources/exposition_parser.h"
#include "model_sources/metrics_source.h"
#include "net/http_client.h"
#include "routing/service_endpoints.h"

namespace carbonroute::routing {

// The rate's window: Istio's dashboards' and the "last 5 minutes".
inline constexpr char kRequestRateWindow[] = "5m";

std::string RequestRateQuery(const ServiceRef& service);

struct ClientRate {
  std::string namespace_name, pod;
  double per_second = 0;  // ≥ 0
};

struct ClientRates {
  std::vector<ClientRate> clients;  // one per Pod, by namespace then name
  double unattributed = 0;          // requests/s in samples without a Pod label
};

// Negative or non-finite rates (a counter reset seen badly) are left out.
ClientRates ReadClientRates(const std::vector<model_sources::Sample>& samples);

// The requests per second each client Pod sends a Service; errors: the query's.
using RequestRateSource = std::function<absl::StatusOr<ClientRates>(const ServiceRef& service)>;
// `route --controller --prometheus`'s source: RequestRateQuery through the
// Prometheus at `url` (model_sources::QueryInstant, bounded by `timeout`),
// read by ReadClientRates. Borrows `http`.
RequestRateSource PrometheusRequestRates(net::HttpClient& http, std::string url,
                                         absl::Duration timeout, model_sources::SourceAuth auth);

struct LocalityDemand {
  std::map<std::string, double> per_second;  // origin locality → requests/s
  double unlocated = 0;                      // requests/s of Pods without a known Node or region
};

// `pod_nodes`: "namespace/pod" → its spec.nodeName (a Pod absent: gone, or
// not yet scheduled).
LocalityDemand DemandByLocality(const ClientRates& rates,
                                const std::map<std::string, std::string>& pod_nodes,
                                const std::map<std::string, kube::KubeNode>& nodes,
                                LocalityLevel level);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_REQUEST_DEMAND_H_
