#include "routing_controller/target_context.h"

#include "absl/strings/str_cat.h"
#include "net/url.h"

namespace carbonroute::routing {

std::string PoliciesPath() {
  return absl::StrCat("/apis/", kPolicyGroupVersion, "/", kPolicyPlural);
}

std::string PolicyPath(const RoutingPolicy& policy) {
  return absl::StrCat("/apis/", kPolicyGroupVersion, "/namespaces/",
                      net::UrlEncode(policy.namespace_name), "/", kPolicyPlural, "/",
                      net::UrlEncode(policy.name));
}

std::string TargetPath(TargetKind kind, const std::string& ns, const std::string& name) {
  if (kind == TargetKind::kDestinationRule) {
    return absl::StrCat("/apis/networking.istio.io/v1/namespaces/", net::UrlEncode(ns),
                        "/destinationrules/", net::UrlEncode(name));
  }
  return absl::StrCat("/apis/gateway.networking.k8s.io/v1/namespaces/", net::UrlEncode(ns),
                      "/httproutes/", net::UrlEncode(name));
}

}  // namespace carbonroute::routing
