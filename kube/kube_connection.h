// File: kube/kube_connection.h
//
// Where the Kubernetes API server is and how to authenticate to it, chosen
// the way client-go programs and controller-runtime operators choose it
// (controller-runtime pkg/client/config GetConfig; client-go rest.InClusterConfig),
// first match wins:
//   1. --kube-api-url (with --kube-token-file and --kube-ca-file, each used
//      only if given: `kubectl proxy` needs neither);
//   2. --kubeconfig FILE (that file alone; --kube-context picks a context);
//   3. $KUBECONFIG, a ':'-separated list of files merged (kubeconfig.h);
//   4. in a Pod: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
//      with the service account's token and CA
//      (https://kubernetes.io/docs/tasks/run-application/access-api-from-pod/);
//   5. ~/.kube/config.
// --kube-token-file and --kube-ca-file override what a kubeconfig or the
// Pod says. --kube-context without 1–3 skips 4 (a context is a kubeconfig's).
//
// Errors: kubeconfig.h's; kFailedPrecondition when nothing above applies
// (naming each place looked at); kFailedPrecondition when a CA, client
// certificate or key file named cannot be read ("cannot read the API
// server's CA file ..."), checked here so the mistake shows at start-up.
// Thread safety: pure functions (they read the environment through
// `KubeEnvironment` and the named files).
#ifndef CARBONROUTE_KUBE_KUBE_CONNECTION_H_
#define CARBONROUTE_KUBE_KUBE_CONNECTION_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kube/exec_credential.h"

namespace carbonroute::kube {

inline constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";

// Everything a request needs. Secrets (token, password, key data) are
// never logged: `Describe()` names only the server and where it came from.
struct KubeConnection {
  std::string server;          // "https://10.96.0.1:443", no trailing slash
  std::string origin;          // "--kube-api-url", "kubeconfig F, context C", "in-cluster"
  std::string namespace_name;  // the context's or the Pod's namespace; "" when unknown
  // TLS: the server's CA ("" both: the system's store), the client's certificate.
  std::string ca_file, ca_pem;
  std::string client_cert_file, client_cert_pem, client_key_file, client_key_pem;
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  // Authentication, at most one: a bearer token (literal, or a file read
  // before every request: projected tokens rotate), or Basic.
  std::string token, token_file;
  std::string username, password;
  // Or a kubeconfig user's exec credential plugin (exec_credential.h), shared
  // by the copies of this connection: its credential is fetched once.
  std::shared_ptr<ExecCredentialSource> exec;
  absl::Duration timeout = absl::Seconds(10);

  // "https://10.96.0.1:443 (in-cluster)".
  std::string Describe() const;
};

// What the user said: the flags every command that talks to Kubernetes takes
// (scheduler-lite's KubeFlags) or the collector's rtt.discovery.kubernetes keys.
struct KubeOptions {
  std::string api_url, token_file, ca_file;
  std::string kubeconfig, context;
  // Ends the message when nothing applies: how this program is told.
  std::string how_to_configure = "give --kubeconfig FILE or --kube-api-url URL";
  // What this program calls the two settings, in messages and Describe():
  // flags for scheduler-lite, configuration keys for the collector.
  std::string api_url_name = "--kube-api-url";
  std::string kubeconfig_name = "--kubeconfig";
};

// The process environment, injectable for tests.
struct KubeEnvironment {
  std::function<const char*(const char*)> getenv;
  std::string service_account_dir = kServiceAccountDir;
};

absl::StatusOr<KubeConnection> ResolveKubeConnection(const KubeOptions& options,
                                                     const KubeEnvironment& environment);

// Whether this process runs in a Pod, as step 4 above decides it: both
// $KUBERNETES_SERVICE_HOST and $KUBERNETES_SERVICE_PORT are set (the kubelet
// sets them in every container).
bool InPod(const KubeEnvironment& environment);

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_KUBE_CONNECTION_H_
