// File: kube/kube_client.h
//
// The one Kubernetes API client every room uses, over net::HttpClient
// (https://kubernetes.io/docs/reference/using-api/api-concepts/):
//   Call     any request; every HTTP status is returned as data
//   Get      GET an object                          200
//   Create   POST to a collection                   200, 201, 202
//   Update   PUT an object (optimistic concurrency: a stale
//            metadata.resourceVersion answers 409) 200, 201
//   Patch    PATCH with a merge patch (RFC 7386) or a JSON patch (RFC 6902)
//            (application/merge-patch+json, application/json-patch+json)
//   ...Status the same on the object's `status` subresource (path + "/status")
//   ListAll  every page of a list (limit/continue); an expired continue token
//            (410) starts it again, at most three times
// Authentication per request, from the KubeConnection: a token file is read
// again before every request (projected service-account tokens rotate); a
// literal token or Basic credentials are sent as they are. TLS: the
// connection's CA, client certificate, server name; verification is on
// unless the kubeconfig said insecure-skip-tls-verify.
//
// Errors (ApiError, for any status the helper did not expect), each naming
// "<METHOD> <path> answered HTTP <status>: <reason: message>" and then:
//   401 kUnauthenticated   the credentials were refused: an expired or revoked
//                          token, a client certificate the server does not trust
//   403 kPermissionDenied  names the verb, the resource and the RBAC rule
//                          that would allow it (apiGroups, resources, verbs)
//   404 kNotFound; 409 kAborted (read again and retry); 410 kOutOfRange (the
//   resourceVersion or continue token expired); 422 kInvalidArgument; 429
//   kResourceExhausted; 5xx kUnavailable; anything else kFailedPrecondition.
// Transport errors are the HttpClient's (kUnavailable, kDeadlineExceeded,
// kCancelled); a token file that cannot be read is kNotFound.
//
// Ownership: borrows the HTTP client, which must outlive it.
// Thread safety: safe for concurrent use (as the HTTP client).
#ifndef CARBONROUTE_KUBE_KUBE_CLIENT_H_
#define CARBONROUTE_KUBE_KUBE_CLIENT_H_

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kube/json_view.h"
#include "kube/kube_connection.h"
#include "net/http_client.h"

namespace carbonroute::kube {

inline constexpr char kMergePatch[] = "application/merge-patch+json";
// 410 Gone: a resourceVersion or a continue token too old; list again.
inline constexpr int kHttpGone = 410;
inline constexpr char kJsonPatch[] = "application/json-patch+json";

struct KubeRequest {
  std::string method = "GET";
  std::string path;  // path and query, e.g. "/api/v1/nodes?limit=500"
  std::string body;
  std::string content_type;
  absl::Duration timeout = absl::ZeroDuration();  // 0: the connection's
  std::function<bool(std::string_view)> on_body;  // net::HttpRequest's (a watch streams)
  std::function<bool()> cancelled;
};

class KubeClient {
 public:
  KubeClient(KubeConnection connection, net::HttpClient& http)
      : connection_(std::move(connection)), http_(http) {}

  absl::StatusOr<net::HttpResponse> Call(KubeRequest request) const;

  // The body of a successful answer; ApiError otherwise.
  absl::StatusOr<std::string> Get(const std::string& path) const;
  absl::StatusOr<std::string> Create(const std::string& collection_path, std::string body) const;
  absl::StatusOr<std::string> Update(const std::string& path, std::string body) const;
  absl::StatusOr<std::string> Patch(const std::string& path, absl::string_view content_type,
                                    std::string body) const;
  // DELETE: OK when the object is gone, by this call (200, 202) or before it (404).
  absl::Status Delete(const std::string& path) const;
  absl::StatusOr<std::string> PatchStatus(const std::string& path, absl::string_view content_type,
                                          std::string body) const;

  const KubeConnection& connection() const { return connection_; }

 private:
  absl::StatusOr<std::string> Expect(KubeRequest request, const std::vector<int>& accepted) const;

  const KubeConnection connection_;
  net::HttpClient& http_;
};

// The typed error of an answer with an unexpected status (see above).
absl::Status ApiError(absl::string_view method, absl::string_view path,
                      const net::HttpResponse& response);

// What RBAC must allow for `method` on `path` ("list" "nodes" in group "").
struct RbacRule {
  std::string api_group, resource, verb;
  std::string Describe() const;  // apiGroups: [""], resources: ["nodes"], verbs: ["list"]
};
RbacRule RuleFor(absl::string_view method, absl::string_view path);

struct ListRequest {
  std::string path;       // a collection: "/api/v1/nodes", "/apis/batch/v1/jobs"
  std::string list_kind;  // "NodeList": names the list in parse errors
  std::string label_selector;
  int page_size = 500;
  absl::Duration timeout = absl::ZeroDuration();
  std::function<bool()> cancelled;
};

struct ListResult {
  std::string resource_version;  // the list's: where a watch starts
  int pages = 0;
};

// One list page as the API returns it ({"metadata": {"resourceVersion",
// "continue"}, "items": [...]}), read through `document`, each item to
// `on_item`. Errors: kInvalidArgument naming `list_kind` and the field
// ("NodeList: items[3].metadata.name: ..."); `on_item`'s. The input is
// untrusted (fuzzed: test/fuzz/kube_api_fuzz.cc).
struct ListPage {
  std::string resource_version;
  std::string continue_token;  // "" on the last page
};
absl::StatusOr<ListPage> ReadListPage(JsonDocument& document, absl::string_view body,
                                      absl::string_view list_kind,
                                      const std::function<absl::Status(const JsonField&)>& on_item);

// Every item of every page (ReadListPage), in order, to `on_item`; `on_restart` is called
// when an expired continue token starts the list again (forget what was
// collected). kCancelled when `cancelled` answered true; `on_item`'s errors.
absl::StatusOr<ListResult> ListAll(const KubeClient& client, const ListRequest& request,
                                   const std::function<absl::Status(const JsonField&)>& on_item,
                                   const std::function<void()>& on_restart);

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_KUBE_CLIENT_H_
