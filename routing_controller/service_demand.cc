#include "routing_controller/service_demand.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "kube/json_view.h"
#include "kube/list_watch.h"
#include "net/url.h"

namespace carbonroute::routing {

const std::map<std::string, kube::KubeNode>& ServiceDemand::nodes() const {
  static const std::map<std::string, kube::KubeNode> kNoNodes;
  return nodes_ != nullptr ? *nodes_ : kNoNodes;
}

void ServiceDemand::NewPass(const std::map<std::string, kube::KubeNode>& nodes) {
  nodes_ = &nodes;
  pod_nodes_.clear();
}

absl::StatusOr<EndpointCount> ServiceDemand::Endpoints(const ServiceRef& service) {
  EndpointCount count;
  absl::StatusOr<kube::ListResult> slices = kube::ListAll(
      api_,
      {.path = EndpointSlicesPath(service),
       .list_kind = "EndpointSliceList",
       .label_selector = absl::StrCat(kServiceNameLabel, "=", service.name)},
      [&](const kube::JsonField& slice) {
        return CountEndpoints(slice, nodes(), options_.level, count);
      },
      [&] { count = {}; });
  if (!slices.ok()) {
    metrics_.common().Error("list");
    return absl::Status(slices.status().code(),
                        absl::StrCat("EndpointSlices of ", service.namespace_name, "/",
                                     service.name, ": ", slices.status().message()));
  }
  return count;
}

absl::StatusOr<ClientRates> ServiceDemand::Rates(const ServiceRef& service) {
  if (!options_.request_rates) return absl::FailedPreconditionError("no request rate source");
  absl::StatusOr<ClientRates> rates = options_.request_rates(service);
  if (!rates.ok()) metrics_.common().Error("requests");
  return rates;
}

std::optional<std::map<std::string, double>> ServiceDemand::Measured(const ServiceRef& service) {
  if (!options_.request_rates) return std::nullopt;
  absl::StatusOr<ClientRates> rates = Rates(service);
  if (!rates.ok()) {
    spdlog::warn(absl::StrCat("route: the requests to ", service.namespace_name, "/", service.name,
                              " (istio_requests_total): ", rates.status().message(),
                              ": demand from the endpoints"));
    return std::nullopt;
  }
  for (const ClientRate& client : rates->clients) {
    const std::string key = absl::StrCat(client.namespace_name, "/", client.pod);
    if (pod_nodes_.contains(key)) continue;
    std::string& node = pod_nodes_[key];  // "" for a Pod gone or unreadable
    absl::StatusOr<std::string> body =
        api_.Get(absl::StrCat("/api/v1/namespaces/", net::UrlEncode(client.namespace_name),
                              "/pods/", net::UrlEncode(client.pod)));
    if (!body.ok()) {
      if (!absl::IsNotFound(body.status())) metrics_.common().Error("get");
      continue;
    }
    kube::JsonDocument document;
    absl::StatusOr<kube::JsonField> pod = document.Parse(*body, "Pod");
    if (pod.ok()) node = (*pod)["spec"]["nodeName"].OptionalString().value_or("");
  }
  LocalityDemand demand = DemandByLocality(*rates, pod_nodes_, nodes(), options_.level);
  if (demand.unlocated > 0) {
    spdlog::warn(absl::StrCat("route: ", demand.unlocated, " requests/s to ",
                              service.namespace_name, "/", service.name,
                              " come from Pods without a known Node or region: left out"));
  }
  return std::move(demand.per_second);
}

}  // namespace carbonroute::routing
