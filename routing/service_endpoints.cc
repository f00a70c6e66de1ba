#include "routing/service_endpoints.h"

#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "net/url.h"

namespace carbonroute::routing {

absl::StatusOr<ServiceRef> ServiceOfHost(const std::string& host,
                                         const std::string& rule_namespace) {
  const std::vector<std::string> parts = absl::StrSplit(host, '.');
  const bool in_cluster = parts.size() <= 2 || (parts.size() >= 3 && parts[2] == "svc");
  if (host.empty() || absl::StrContains(host, '*') || !in_cluster ||
      absl::c_any_of(parts, [](const std::string& part) { return part.empty(); })) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.host \"", host,
                     "\": expected a Service of this cluster (name, name.namespace or "
                     "name.namespace.svc.cluster.local)"));
  }
  return ServiceRef{.namespace_name = parts.size() >= 2 ? parts[1] : rule_namespace,
                    .name = parts[0]};
}

std::string EndpointSlicesPath(const ServiceRef& service) {
  return absl::StrCat("/apis/discovery.k8s.io/v1/namespaces/",
                      net::UrlEncode(service.namespace_name), "/endpointslices");
}

std::string NodeLocality(const kube::KubeNode& node, LocalityLevel level) {
  if (node.region.empty()) return "";
  if (level == LocalityLevel::kZone && !node.zone.empty()) {
    return absl::StrCat(node.region, "/", node.zone, "/*");
  }
  return absl::StrCat(node.region, "/*");
}

absl::Status CountEndpoints(const kube::JsonField& slice,
                            const std::map<std::string, kube::KubeNode>& nodes, LocalityLevel level,
                            EndpointCount& count) {
  CARBONROUTE_RETURN_IF_ERROR(slice.RequireObject());
  return slice["endpoints"].ForEachElement([&](const kube::JsonField& endpoint) -> absl::Status {
    CARBONROUTE_ASSIGN_OR_RETURN(const std::string node_name,
                                 endpoint["nodeName"].OptionalString());
    const kube::JsonField ready = endpoint["conditions"]["ready"];
    CARBONROUTE_ASSIGN_OR_RETURN(const bool ready_value, ready.OptionalBool());
    if (!ready.missing() && !ready_value) return absl::OkStatus();
    const kube::JsonField target = endpoint["targetRef"];
    if (target["kind"].OptionalString().value_or("") == "Pod") {
      const std::string pod = target["name"].OptionalString().value_or("");
      if (!pod.empty()) count.pods.insert(pod);
    }
    const auto node = nodes.find(node_name);
    const std::string locality = node == nodes.end() ? "" : NodeLocality(node->second, level);
    if (locality.empty()) {
      ++count.unlocated;
    } else {
      count.by_locality[locality] += 1;
    }
    return absl::OkStatus();
  });
}

}  // namespace carbonroute::routing
