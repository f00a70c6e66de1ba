#include "kube/kube_client.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/data_files.h"
#include "net/url.h"

namespace carbonroute::kube {
namespace {

bool Accepted(int status, const std::vector<int>& accepted) {
  return std::find(accepted.begin(), accepted.end(), status) != accepted.end();
}

}  // namespace

absl::StatusOr<net::HttpResponse> KubeClient::Call(KubeRequest request) const {
  net::HttpRequest http;
  http.method = request.method;
  http.url = absl::StrCat(connection_.server, request.path);
  http.headers.emplace_back("Accept", "application/json");
  if (!request.content_type.empty())
    http.headers.emplace_back("Content-Type", request.content_type);
  if (!connection_.token_file.empty()) {
    // Read before every request: projected service-account tokens rotate.
    absl::StatusOr<std::string> token = ReadSecretFile(connection_.token_file, "bearer token");
    if (!token.ok()) return token.status();
    http.headers.emplace_back("Authorization",
                              absl::StrCat("Bearer ", absl::StripAsciiWhitespace(*token)));
  } else if (!connection_.token.empty()) {
    http.headers.emplace_back("Authorization", absl::StrCat("Bearer ", connection_.token));
  } else if (connection_.exec != nullptr) {
    absl::StatusOr<ExecCredential> credential = connection_.exec->Get();
    if (!credential.ok()) return credential.status();
    if (!credential->token.empty()) {
      http.headers.emplace_back("Authorization", absl::StrCat("Bearer ", credential->token));
    } else {
      http.client_cert_pem = credential->client_cert_pem;
      http.client_key_pem = credential->client_key_pem;
    }
  } else if (!connection_.username.empty()) {
    http.headers.emplace_back(
        "Authorization",
        absl::StrCat("Basic ", absl::Base64Escape(
                                   absl::StrCat(connection_.username, ":", connection_.password))));
  }
  http.ca_file = connection_.ca_file;
  http.ca_pem = connection_.ca_pem;
  http.client_cert_file = connection_.client_cert_file;
  if (http.client_cert_pem.empty()) http.client_cert_pem = connection_.client_cert_pem;
  http.client_key_file = connection_.client_key_file;
  if (http.client_key_pem.empty()) http.client_key_pem = connection_.client_key_pem;
  http.tls_server_name = connection_.tls_server_name;
  http.insecure_skip_tls_verify = connection_.insecure_skip_tls_verify;
  http.timeout = request.timeout > absl::ZeroDuration() ? request.timeout : connection_.timeout;
  http.connect_timeout = std::min(http.timeout, absl::Seconds(10));
  http.body = std::move(request.body);
  http.on_body = std::move(request.on_body);
  http.cancelled = std::move(request.cancelled);
  absl::StatusOr<net::HttpResponse> response = http_.Send(http);
  // client-go runs the plugin again after a 401: the credential was revoked or expired early.
  if (response.ok() && response->status == 401 && connection_.exec != nullptr) {
    connection_.exec->Invalidate();
  }
  return response;
}

absl::StatusOr<std::string> KubeClient::Expect(KubeRequest request,
                                               const std::vector<int>& accepted) const {
  const std::string method = request.method, path = request.path;
  absl::StatusOr<net::HttpResponse> response = Call(std::move(request));
  if (!response.ok()) return response.status();
  if (!Accepted(response->status, accepted)) return ApiError(method, path, *response);
  return std::move(response->body);
}

absl::StatusOr<std::string> KubeClient::Get(const std::string& path) const {
  return Expect({.method = "GET", .path = path}, {200});
}

absl::StatusOr<std::string> KubeClient::Create(const std::string& collection_path,
                                               std::string body) const {
  return Expect({.method = "POST",
                 .path = collection_path,
                 .body = std::move(body),
                 .content_type = "application/json"},
                {200, 201, 202});
}

absl::StatusOr<std::string> KubeClient::Update(const std::string& path, std::string body) const {
  return Expect(
      {.method = "PUT", .path = path, .body = std::move(body), .content_type = "application/json"},
      {200, 201});
}

absl::StatusOr<std::string> KubeClient::Patch(const std::string& path,
                                              absl::string_view content_type,
                                              std::string body) const {
  return Expect({.method = "PATCH",
                 .path = path,
                 .body = std::move(body),
                 .content_type = std::string(content_type)},
                {200});
}

absl::Status KubeClient::Delete(const std::string& path) const {
  return Expect({.method = "DELETE", .path = path}, {200, 202, 404}).status();
}

absl::StatusOr<std::string> KubeClient::PatchStatus(const std::string& path,
                                                    absl::string_view content_type,
                                                    std::string body) const {
  return Patch(absl::StrCat(path, "/status"), content_type, std::move(body));
}

std::string RbacRule::Describe() const {
  return absl::StrCat("apiGroups: [\"", api_group, "\"], resources: [\"", resource,
                      "\"], verbs: [\"", verb, "\"]");
}

RbacRule RuleFor(absl::string_view method, absl::string_view path) {
  const std::size_t query_at = path.find('?');
  const absl::string_view query =
      query_at == absl::string_view::npos ? "" : path.substr(query_at + 1);
  const std::vector<absl::string_view> parts =
      absl::StrSplit(path.substr(0, query_at), '/', absl::SkipEmpty());
  RbacRule rule;
  // /api/v1/... (the core group, "") or /apis/{group}/{version}/...
  std::size_t at = 0;
  if (!parts.empty() && parts[0] == "api") {
    at = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    rule.api_group = std::string(parts[1]);
    at = 3;
  }
  if (at + 1 < parts.size() && parts[at] == "namespaces" && at + 2 < parts.size()) at += 2;
  const bool named = at + 1 < parts.size();
  if (at < parts.size()) rule.resource = std::string(parts[at]);
  if (at + 2 < parts.size()) absl::StrAppend(&rule.resource, "/", parts[at + 2]);  // status
  const bool watch = absl::StrContains(absl::StrCat("&", query), "&watch=true");
  if (method == "GET") {
    rule.verb = watch ? "watch" : named ? "get" : "list";
  } else if (method == "POST") {
    rule.verb = "create";
  } else if (method == "PUT") {
    rule.verb = "update";
  } else if (method == "PATCH") {
    rule.verb = "patch";
  } else if (method == "DELETE") {
    rule.verb = named ? "delete" : "deletecollection";
  } else {
    rule.verb = absl::AsciiStrToLower(method);
  }
  return rule;
}

absl::Status ApiError(absl::string_view method, absl::string_view path,
                      const net::HttpResponse& response) {
  const std::string shown(path.substr(0, path.find('?')));
  const std::string head = absl::StrCat(method, " ", shown, " answered HTTP ", response.status,
                                        ": ", DescribeStatus(response.body));
  const int status = response.status;
  if (status == 401) {
    return absl::UnauthenticatedError(absl::StrCat(
        head,
        "; the API server refused the credentials: the token has expired or was revoked, or "
        "the client certificate is not one it trusts (a token file is read again before every "
        "request, so a rotated token is picked up)"));
  }
  if (status == 403) {
    const RbacRule rule = RuleFor(method, path);
    return absl::PermissionDeniedError(
        absl::StrCat(head, "; RBAC does not allow \"", rule.verb, "\" on \"", rule.resource,
                     "\": grant a Role or ClusterRole with the rule {", rule.Describe(), "}"));
  }
  if (status == 404) return absl::NotFoundError(head);
  if (status == 409) return absl::AbortedError(absl::StrCat(head, "; read it again and retry"));
  if (status == kHttpGone) return absl::OutOfRangeError(head);
  if (status == 422) return absl::InvalidArgumentError(head);
  if (status == 429) return absl::ResourceExhaustedError(head);
  if (status >= 500) return absl::UnavailableError(head);
  return absl::FailedPreconditionError(head);
}

absl::StatusOr<ListPage> ReadListPage(
    JsonDocument& document, absl::string_view body, absl::string_view list_kind,
    const std::function<absl::Status(const JsonField&)>& on_item) {
  absl::StatusOr<JsonField> root = document.Parse(body, list_kind);
  if (!root.ok()) return root.status();
  if (absl::Status status = root->RequireObject(); !status.ok()) return status;
  const JsonField metadata = (*root)["metadata"];
  if (absl::Status status = metadata.ExpectObjectOrMissing(); !status.ok()) return status;
  ListPage page;
  absl::StatusOr<std::string> version = metadata["resourceVersion"].OptionalString();
  if (!version.ok()) return version.status();
  page.resource_version = *std::move(version);
  absl::StatusOr<std::string> next = metadata["continue"].OptionalString();
  if (!next.ok()) return next.status();
  page.continue_token = *std::move(next);
  if (absl::Status status = (*root)["items"].ForEachElement(on_item); !status.ok()) return status;
  return page;
}

absl::StatusOr<ListResult> ListAll(const KubeClient& client, const ListRequest& request,
                                   const std::function<absl::Status(const JsonField&)>& on_item,
                                   const std::function<void()>& on_restart) {
  JsonDocument document;
  for (int attempt = 0; attempt < 3; ++attempt) {
    ListResult result;
    std::string continue_token;
    bool expired = false;
    do {
      std::vector<std::pair<std::string, std::string>> query = {
          {"limit", absl::StrCat(request.page_size)}};
      if (!continue_token.empty()) query.emplace_back("continue", continue_token);
      if (!request.label_selector.empty()) {
        query.emplace_back("labelSelector", request.label_selector);
      }
      const std::string path = absl::StrCat(request.path, net::Query(query));
      absl::StatusOr<net::HttpResponse> response = client.Call({.method = "GET",
                                                                .path = path,
                                                                .timeout = request.timeout,
                                                                .cancelled = request.cancelled});
      if (!response.ok()) return response.status();
      if (response->status == kHttpGone) {  // the continue token expired: list again
        expired = true;
        break;
      }
      if (response->status != 200) return ApiError("GET", path, *response);
      absl::StatusOr<ListPage> page =
          ReadListPage(document, response->body, request.list_kind, on_item);
      if (!page.ok()) return page.status();
      if (result.resource_version.empty()) result.resource_version = page->resource_version;
      ++result.pages;
      continue_token = std::move(page->continue_token);
      if (request.cancelled && request.cancelled()) return absl::CancelledError("stopped");
    } while (!continue_token.empty());
    if (!expired) return result;
    if (on_restart) on_restart();
  }
  return absl::UnavailableError(
      absl::StrCat("listing ", request.path, ": the continue token expired three times"));
}

}  // namespace carbonroute::kube
