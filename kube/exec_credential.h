// File: kube/exec_credential.h
//
// A kubeconfig user's `exec` credential plugin, run as kubectl and client-go
// run it (client.authentication.k8s.io, v1 and v1beta1:
// https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins):
// how EKS (`aws eks get-token`), GKE (`gke-gcloud-auth-plugin`) and AKS
// (`kubelogin`) kubeconfigs log in.
//   - The command, found on PATH (a relative path with a '/' is relative to
//     the kubeconfig's folder), runs with the kubeconfig's `args`, this
//     process's environment plus the kubeconfig's `env`, and
//     KUBERNETES_EXEC_INFO set to an ExecCredential of the same apiVersion
//     whose spec says it is not interactive; stdin is /dev/null and its
//     stderr goes where this process's goes (a plugin's own messages reach
//     the user).
//   - Its stdout is an ExecCredential whose `status` holds a `token`, or a
//     `clientCertificateData` and `clientKeyData` (PEM), and an optional
//     `expirationTimestamp` (RFC 3339). The credential is kept until then (or
//     for good without one) and the plugin runs again after it, or after the
//     API server answered 401 (Invalidate), as client-go does.
//
// Errors (Get): kNotFound the command cannot be started (the message adds the
// kubeconfig's installHint); kUnknown it exited non-zero or was killed;
// kInvalidArgument its output is not an ExecCredential of the apiVersion
// asked for, or has neither a token nor a certificate and key; each message
// names the kubeconfig user. Never logs or returns the credential in a message.
// Thread safety: Get and Invalidate may be called from any thread (one plugin
// run at a time).
#ifndef CARBONROUTE_KUBE_EXEC_CREDENTIAL_H_
#define CARBONROUTE_KUBE_EXEC_CREDENTIAL_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace carbonroute::kube {

// The two apiVersions kubectl 1.24 and later run plugins with.
inline constexpr char kExecCredentialV1[] = "client.authentication.k8s.io/v1";
inline constexpr char kExecCredentialV1beta1[] = "client.authentication.k8s.io/v1beta1";

// The kubeconfig's `users[].user.exec`.
struct ExecConfig {
  std::string api_version;
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string install_hint;
  std::string described_as;  // "kubeconfig F: user \"U\"", for messages
};

struct ExecCredential {
  std::string token;                            // a bearer token, or
  std::string client_cert_pem, client_key_pem;  // a client certificate
  absl::Time expires = absl::InfiniteFuture();
};

// The `status` of a plugin's answer; `api_version` is the one it was run with.
absl::StatusOr<ExecCredential> ParseExecCredential(absl::string_view json,
                                                   absl::string_view api_version);

class ExecCredentialSource {
 public:
  // `now`: the clock expirations are compared with (injectable for tests).
  explicit ExecCredentialSource(
      ExecConfig config, std::function<absl::Time()> now = [] { return absl::Now(); })
      : config_(std::move(config)), now_(std::move(now)) {}

  absl::StatusOr<ExecCredential> Get();
  // The API server refused the credential: the next Get runs the plugin again.
  void Invalidate();
  // How many times the plugin ran.
  int runs() const;

 private:
  const ExecConfig config_;
  const std::function<absl::Time()> now_;
  mutable absl::Mutex mutex_;
  bool cached_ ABSL_GUARDED_BY(mutex_) = false;
  ExecCredential credential_ ABSL_GUARDED_BY(mutex_);
  int runs_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_EXEC_CREDENTIAL_H_
