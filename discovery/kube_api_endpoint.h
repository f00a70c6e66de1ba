// File: discovery/kube_api_endpoint.h
//
// Where the Kubernetes API is and how to authenticate to it, from
// `rtt.discovery.kubernetes` and the environment. In a Pod (no api_url), the
// way client libraries find it
// (https://kubernetes.io/docs/tasks/run-application/access-api-from-pod/):
//   https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
//   token  /var/run/secrets/kubernetes.io/serviceaccount/token
//   CA     /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
// With api_url, token_file and ca_file are used only if set (kubectl proxy
// needs neither).
//
// Errors: kFailedPrecondition when no api_url is set and
// KUBERNETES_SERVICE_HOST or _PORT is not (the collector is not in a Pod).
// Thread safety: pure function (reads the environment through `getenv`).
#ifndef CARBONROUTE_DISCOVERY_KUBE_API_ENDPOINT_H_
#define CARBONROUTE_DISCOVERY_KUBE_API_ENDPOINT_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "config/collector_config.h"

namespace carbonroute::discovery {

inline constexpr char kServiceAccountTokenFile[] =
    "/var/run/secrets/kubernetes.io/serviceaccount/token";
inline constexpr char kServiceAccountCaFile[] =
    "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";

struct KubeApiEndpoint {
  std::string base_url;    // "https://10.96.0.1:443", no trailing slash
  std::string token_file;  // "" = no Authorization header
  std::string ca_file;     // "" = the system's CA store
};

using GetEnv = std::function<const char*(const char*)>;

absl::StatusOr<KubeApiEndpoint> ResolveKubeApiEndpoint(const KubernetesDiscoveryConfig& config,
                                                       const GetEnv& getenv);

}  // namespace carbonroute::discovery

#endif  // CARBONROUTE_DISCOVERY_KUBE_API_ENDPOINT_H_
