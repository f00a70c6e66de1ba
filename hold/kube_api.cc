#include "hold/kube_api.h"

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "base/data_files.h"
#include "net/url.h"

namespace carbonroute::hold {

absl::StatusOr<net::HttpResponse> KubeApi::Call(absl::string_view method,
                                                absl::string_view path_and_query, std::string body,
                                                absl::string_view content_type,
                                                absl::Duration timeout,
                                                std::function<bool(std::string_view)> on_body,
                                                std::function<bool()> cancelled) {
  net::HttpRequest request;
  request.method = std::string(method);
  request.url = absl::StrCat(target_.base_url, path_and_query);
  request.headers.emplace_back("Accept", "application/json");
  if (!content_type.empty())
    request.headers.emplace_back("Content-Type", std::string(content_type));
  if (!target_.token_file.empty()) {
    absl::StatusOr<std::string> token = ReadSecretFile(target_.token_file, "service account token");
    if (!token.ok()) return token.status();
    request.headers.emplace_back("Authorization", absl::StrCat("Bearer ", *token));
  }
  request.ca_file = target_.ca_file;
  request.timeout = timeout > absl::ZeroDuration() ? timeout : target_.timeout;
  request.connect_timeout = std::min(request.timeout, absl::Seconds(5));
  request.body = std::move(body);
  request.on_body = std::move(on_body);
  request.cancelled = std::move(cancelled);
  return http_.Send(request);
}

absl::StatusOr<KubeApiTarget> ResolveKubeApiTarget(
    const std::string& url, const std::string& token_file, const std::string& ca_file,
    const std::function<const char*(const char*)>& getenv) {
  KubeApiTarget target;
  target.token_file = token_file;
  target.ca_file = ca_file;
  if (!url.empty()) {
    target.base_url = std::string(absl::StripSuffix(url, "/"));
    return target;
  }
  const char* host = getenv("KUBERNETES_SERVICE_HOST");
  const char* port = getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == '\0' || *port == '\0') {
    return absl::FailedPreconditionError(
        "not in a Pod (KUBERNETES_SERVICE_HOST and _PORT are not set): give --kube-api-url");
  }
  const std::string h = host;
  target.base_url =
      absl::StrCat("https://", h.find(':') != std::string::npos ? "[" + h + "]" : h, ":", port);
  if (target.token_file.empty()) target.token_file = absl::StrCat(kServiceAccountDir, "/token");
  if (target.ca_file.empty()) target.ca_file = absl::StrCat(kServiceAccountDir, "/ca.crt");
  return target;
}

absl::Status UnexpectedStatus(absl::string_view method, absl::string_view path,
                              const net::HttpResponse& response) {
  std::string why = response.body.substr(0, 200);
  const nlohmann::json status = nlohmann::json::parse(response.body, nullptr, false);
  if (!status.is_discarded() && status.is_object()) {
    why = absl::StrCat(status.value("reason", ""), ": ", status.value("message", ""));
  }
  return absl::FailedPreconditionError(
      absl::StrCat(method, " ", path, " answered HTTP ", response.status, ": ", why));
}

absl::StatusOr<ObjectList> ListHeld(KubeApi& api, HeldKind kind, const std::string& label_selector,
                                    int page_size) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    ObjectList all;
    std::string continue_token;
    bool expired = false;
    do {
      std::vector<std::pair<std::string, std::string>> query = {{"labelSelector", label_selector},
                                                                {"limit", absl::StrCat(page_size)}};
      if (!continue_token.empty()) query.emplace_back("continue", continue_token);
      const std::string path = absl::StrCat(CollectionPath(kind), net::Query(query));
      absl::StatusOr<net::HttpResponse> response = api.Call("GET", path);
      if (!response.ok()) return response.status();
      if (response->status == 410) {  // the continue token expired: list again
        expired = true;
        break;
      }
      if (response->status != 200) return UnexpectedStatus("GET", path, *response);
      absl::StatusOr<ObjectList> page = ParseObjectList(response->body, kind);
      if (!page.ok()) return page.status();
      if (all.resource_version.empty()) all.resource_version = page->resource_version;
      for (HeldObject& object : page->items) all.items.push_back(std::move(object));
      continue_token = page->continue_token;
    } while (!continue_token.empty());
    if (!expired) return all;
  }
  return absl::UnavailableError(
      absl::StrCat("listing ", KindName(kind), "s: the continue token expired three times"));
}

}  // namespace carbonroute::hold
