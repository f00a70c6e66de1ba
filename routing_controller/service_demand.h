// File: routing_controller/service_demand.h
//
// What a Service's target needs to know of it in one pass: its ready
// endpoints per locality (its EndpointSlices, routing/service_endpoints.h,
// placed by the Nodes listed this pass) and, with a request rate source
// (route --prometheus), the requests per second Istio measured from its
// clients per locality (routing/request_demand.h: each client Pod's Node read
// with a GET, once per pass).
//
// Errors: Endpoints returns the list's error naming the Service (counted,
// operation "list"); Measured returns nullopt when the source failed (logged,
// counted "requests"), so the demand falls back to the endpoints.
// Ownership: borrows the client, the metrics and the source; the Nodes given
// to NewPass must outlive the pass.
// Thread safety: one thread (the controller's pass).
#ifndef CARBONROUTE_ROUTING_CONTROLLER_SERVICE_DEMAND_H_
#define CARBONROUTE_ROUTING_CONTROLLER_SERVICE_DEMAND_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "kube/kube_client.h"
#include "kube/kube_node.h"
#include "routing/request_demand.h"
#include "routing/service_endpoints.h"
#include "routing_controller/routing_metrics.h"
#include "routing_controller/target_context.h"

namespace carbonroute::routing {

class ServiceDemand {
 public:
  ServiceDemand(const kube::KubeClient& api, RoutingMetrics& metrics,
                const RoutingControllerOptions& options)
      : api_(api), metrics_(metrics), options_(options) {}

  // A new pass over `nodes` (name → Node): the Pods' Nodes are read again.
  void NewPass(const std::map<std::string, kube::KubeNode>& nodes);
  // The Service's ready endpoints per locality.
  absl::StatusOr<EndpointCount> Endpoints(const ServiceRef& service);
  // The requests per second to `service` per client locality; nullopt without
  // a request rate source or when it failed.
  std::optional<std::map<std::string, double>> Measured(const ServiceRef& service);
  // The requests to `service` as the source measured them (for an HTTPRoute,
  // whose clients are all its Gateway's); errors: the source's (counted).
  absl::StatusOr<ClientRates> Rates(const ServiceRef& service);
  bool measuring() const { return static_cast<bool>(options_.request_rates); }

 private:
  const kube::KubeClient& api_;
  RoutingMetrics& metrics_;
  const RoutingControllerOptions& options_;
  // The Nodes NewPass gave (none before the first pass).
  const std::map<std::string, kube::KubeNode>& nodes() const;

  const std::map<std::string, kube::KubeNode>* nodes_ = nullptr;
  std::map<std::string, std::string> pod_nodes_;  // "namespace/pod" → its Node, this pass
};

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_CONTROLLER_SERVICE_DEMAND_H_
