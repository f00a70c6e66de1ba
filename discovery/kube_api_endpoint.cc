#include "discovery/kube_api_endpoint.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace carbonroute::discovery {

absl::StatusOr<KubeApiEndpoint> ResolveKubeApiEndpoint(const KubernetesDiscoveryConfig& config,
                                                       const GetEnv& getenv) {
  KubeApiEndpoint endpoint;
  if (!config.api_url.empty()) {
    endpoint.base_url = std::string(absl::StripSuffix(config.api_url, "/"));
    endpoint.token_file = config.token_file;
    endpoint.ca_file = config.ca_file;
    return endpoint;
  }
  const char* host = getenv("KUBERNETES_SERVICE_HOST");
  const char* port = getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    return absl::FailedPreconditionError(
        "rtt.discovery.kubernetes: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not "
        "set, so the collector is not running in a Pod; set api_url (e.g. "
        "\"http://127.0.0.1:8001\" for kubectl proxy)");
  }
  const absl::string_view host_view(host);
  endpoint.base_url = absl::StrContains(host_view, ':')  // an IPv6 literal
                          ? absl::StrCat("https://[", host_view, "]:", port)
                          : absl::StrCat("https://", host_view, ":", port);
  endpoint.token_file = config.token_file.empty() ? kServiceAccountTokenFile : config.token_file;
  endpoint.ca_file = config.ca_file.empty() ? kServiceAccountCaFile : config.ca_file;
  return endpoint;
}

}  // namespace carbonroute::discovery
