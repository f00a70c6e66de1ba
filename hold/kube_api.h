// File: hold/kube_api.h
//
// The Kubernetes API calls of `scheduler-lite hold`, over net::HttpClient:
//   GET   /apis/batch/v1/jobs?labelSelector=S&limit=N[&continue=T]   (and /api/v1/pods)
//   PATCH <object path>  application/merge-patch+json (RFC 7386) or
//                        application/json-patch+json (RFC 6902), as the API
//                        server accepts them
//                        (https://kubernetes.io/docs/reference/using-api/api-concepts/#patch-and-apply)
//   GET/POST/PUT /apis/coordination.k8s.io/v1/namespaces/{ns}/leases[/{name}]
// Authentication: the bearer token file is read before every request (a
// projected service-account token rotates); TLS is verified against the CA
// file (never disabled). Plain http:// is allowed for a local proxy.
//
// ListHeld pages through a list; an expired continue token (410) starts it
// again, at most three times.
//
// Errors: the HTTP client's transport errors; kFailedPrecondition
// "<method> <path> answered HTTP <status>: <reason>" for an unexpected
// status (Call returns every status; the helpers judge it); ParseObjectList's.
// Thread safety: as the HTTP client.
#ifndef CARBONROUTE_HOLD_KUBE_API_H_
#define CARBONROUTE_HOLD_KUBE_API_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "hold/held_object.h"
#include "net/http_client.h"

namespace carbonroute::hold {

struct KubeApiTarget {
  std::string base_url;    // "https://10.96.0.1:443" or "http://127.0.0.1:8001", no trailing slash
  std::string token_file;  // "" = no Authorization header
  std::string ca_file;     // "" = the system's CA store
  absl::Duration timeout = absl::Seconds(10);
};

// In a Pod (no `url`), as client libraries find the API
// (https://kubernetes.io/docs/tasks/run-application/access-api-from-pod/):
// https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT with the service
// account's token and CA, unless `token_file`/`ca_file` say otherwise. With a
// `url`, only the files given are used (kubectl proxy needs none).
// kFailedPrecondition when there is no `url` and the environment is not a Pod's.
inline constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";
absl::StatusOr<KubeApiTarget> ResolveKubeApiTarget(
    const std::string& url, const std::string& token_file, const std::string& ca_file,
    const std::function<const char*(const char*)>& getenv);

inline constexpr char kMergePatch[] = "application/merge-patch+json";
inline constexpr char kJsonPatch[] = "application/json-patch+json";

class KubeApi {
 public:
  KubeApi(KubeApiTarget target, net::HttpClient& http) : target_(std::move(target)), http_(http) {}

  // Any status is returned; only transport and token-file failures are errors.
  // `timeout` 0: the target's. `on_body`, `cancelled`: net::HttpRequest's
  // (a watch streams its body).
  absl::StatusOr<net::HttpResponse> Call(absl::string_view method, absl::string_view path_and_query,
                                         std::string body = "", absl::string_view content_type = "",
                                         absl::Duration timeout = absl::ZeroDuration(),
                                         std::function<bool(std::string_view)> on_body = nullptr,
                                         std::function<bool()> cancelled = nullptr);

 private:
  const KubeApiTarget target_;
  net::HttpClient& http_;
};

// Every object of `kind` the label selector admits, across namespaces, and
// the list's resourceVersion (where a watch starts).
absl::StatusOr<ObjectList> ListHeld(KubeApi& api, HeldKind kind, const std::string& label_selector,
                                    int page_size = 500);

// "GET /x answered HTTP 403: Forbidden: ..." (the Status body's reason and message).
absl::Status UnexpectedStatus(absl::string_view method, absl::string_view path,
                              const net::HttpResponse& response);

}  // namespace carbonroute::hold

#endif  // CARBONROUTE_HOLD_KUBE_API_H_
