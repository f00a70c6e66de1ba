// File: routing/service_endpoints.h
//
// Where a DestinationRule's Service is served from: its host's Service, that
// Service's EndpointSlices (discovery.k8s.io/v1,
// https://kubernetes.io/docs/reference/kubernetes-api/service-resources/endpoint-slice-v1/),
// each ready endpoint's Node, the Node's region and zone (kube/kube_node.h:
// the topology labels, GreenCourier's node.kubernetes.io/region annotation),
// counted per Istio locality: "region/*" (LocalityLevel::kRegion) or
// "region/zone/*" (kZone).
//
//   host: "web" (the rule's namespace), "web.shop", "web.shop.svc",
//         "web.shop.svc.cluster.local" (any cluster domain after svc).
//   an endpoint counts when conditions.ready is not false (absent means
//         ready, as the API defines it), once per address set, where its
//         nodeName is a known Node with a region.
//
// Errors: ServiceOfHost: kInvalidArgument for a host that names no Service
// of this cluster (a wildcard, an external name), naming it.
// Thread safety: pure functions.
#ifndef CARBONROUTE_ROUTING_SERVICE_ENDPOINTS_H_
#define CARBONROUTE_ROUTING_SERVICE_ENDPOINTS_H_

#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "kube/json_view.h"
#include "kube/kube_node.h"

namespace carbonroute::routing {

enum class LocalityLevel { kRegion, kZone };

struct ServiceRef {
  std::string namespace_name, name;
};

absl::StatusOr<ServiceRef> ServiceOfHost(const std::string& host,
                                         const std::string& rule_namespace);

// The EndpointSlices of a Service, listed with
// labelSelector=kubernetes.io/service-name=NAME in its namespace.
std::string EndpointSlicesPath(const ServiceRef& service);
inline constexpr char kServiceNameLabel[] = "kubernetes.io/service-name";

struct EndpointCount {
  std::map<std::string, double> by_locality;  // "region/*" → ready endpoints
  int unlocated = 0;                          // ready endpoints without a known Node or region
  std::set<std::string> pods;  // the ready endpoints' Pods (targetRef kind Pod), by name
};

// Adds one EndpointSlice's ready endpoints to `count`. kInvalidArgument
// naming the field for a slice that is not what the API returns.
absl::Status CountEndpoints(const kube::JsonField& slice,
                            const std::map<std::string, kube::KubeNode>& nodes, LocalityLevel level,
                            EndpointCount& count);

// The Istio locality of a Node: "region/*" or "region/zone/*"; "" without a region.
std::string NodeLocality(const kube::KubeNode& node, LocalityLevel level);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_SERVICE_ENDPOINTS_H_
