// File: net/http_client.h
//
// The HTTP seam. Providers and scheduler-lite's metrics source talk HTTP only
// through this interface; CurlHttpClient (net/curl_http_client.h) is the
// real implementation, tests use fakes or a loopback server.
//
// HTTP status codes are data, not errors: a 404 or 503 is a successful
// Send() whose response carries that status. Only transport failures are
// errors:
//   kDeadlineExceeded  connect or total timeout
//   kUnavailable       connection refused/reset, DNS failure, TLS failure
//   kInvalidArgument   a malformed URL
//   kCancelled         `cancelled` answered true, or `on_body` false
#ifndef CARBONROUTE_NET_HTTP_CLIENT_H_
#define CARBONROUTE_NET_HTTP_CLIENT_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace carbonroute::net {

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  absl::Duration timeout = absl::Seconds(10);  // whole request, connect included
  absl::Duration connect_timeout = absl::Seconds(5);
  // PEM CA bundle the server's certificate is verified against; "" = the system's.
  std::string ca_file;
  // PEM client certificate and its key, for a server that asks for one; "" = none.
  std::string client_cert_file;
  std::string client_key_file;
  // The same three as PEM text in memory (a kubeconfig's `*-data` fields),
  // used instead of the files when set.
  std::string ca_pem;
  std::string client_cert_pem;
  std::string client_key_pem;
  // The name the server's certificate is verified against (and sent as SNI)
  // when it differs from the URL's host (a kubeconfig's tls-server-name);
  // "" = the URL's host.
  std::string tls_server_name;
  // Skips verifying the server's certificate. Only a kubeconfig's explicit
  // `insecure-skip-tls-verify: true` sets it; nothing else in carbonroute does.
  bool insecure_skip_tls_verify = false;
  // Streaming: when set, a 2xx response's body is handed to on_body as it
  // arrives (any split) instead of being collected in HttpResponse::body;
  // returning false ends the transfer (kCancelled). Other statuses' bodies
  // are collected as usual. For long-lived streams such as a Kubernetes watch.
  std::function<bool(std::string_view chunk)> on_body;
  // Polled while the request runs (at least once a second); true aborts it
  // (kCancelled). May be empty.
  std::function<bool()> cancelled;
};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

// Thread safety: implementations are safe for concurrent use.
class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual absl::StatusOr<HttpResponse> Send(const HttpRequest& request) = 0;
};

}  // namespace carbonroute::net

#endif  // CARBONROUTE_NET_HTTP_CLIENT_H_
