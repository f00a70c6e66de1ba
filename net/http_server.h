// File: net/http_server.h
//
// A small HTTP/1.1 server over GNU libmicrohttpd (Debian's libmicrohttpd12)
// with exact-path routing, optional TLS and HTTP Basic authentication. The
// collector serves /metrics and /healthz with it; scheduler-lite serves the
// kube-scheduler extender's POST routes.
//
// Connections are multiplexed with epoll on `threads` threads, so idle or
// slowly trickling connections (slowloris) hold no thread: they cost at most
// `connection_memory_bytes` each, up to `max_connections`, and are closed
// after `idle_timeout` without a byte. A request whose line and headers do not
// fit in `connection_memory_bytes` gets 431 (or 413); a body larger than
// `max_body_bytes` gets 413 without reaching a handler (a chunked one is cut
// off: the connection is closed), and so is one that would take the bodies
// being received on all connections over `max_buffered_body_bytes`; a method
// other than GET, HEAD and POST gets 501; an unknown path gets 404. Memory is
// therefore bounded by max_connections × connection_memory_bytes plus
// max_buffered_body_bytes plus what handlers use. Keep-alive and pipelined requests are served in
// order; each reply leaves in one write, except a streamed one (HttpServerResponse::stream), which
// goes with chunked transfer coding (RFC 9112 §7.1) in pieces of kStreamPieceBytes as the client
// takes them. With `gzip`, a body of kGzipMinBytes or more, and every streamed body, goes
// gzip-compressed (RFC 1952) to a client whose Accept-Encoding admits it (Prometheus always asks);
// a streamed body is compressed piece by piece (net/gzip_body.h).
//
// TLS (`tls`): the server's certificate and key; with a client CA, client
// certificates are asked for and verified against it, and with
// `require_client_certificate` the handshake fails without a valid one (as
// exporter-toolkit's RequireAndVerifyClientCert). Basic authentication
// (`basic_auth_users`, RFC 7617): every path needs a listed user whose
// password matches its bcrypt hash; else 401 with a WWW-Authenticate
// challenge. A verified (user, password) is remembered (as a SHA-256
// digest), so bcrypt's cost is paid once per client, not per request.
//
// Thread safety: handlers run on the server's threads, concurrently; they
// must be thread-safe. Start()/~HttpServer() are called from one thread.
// The destructor stops the server and waits for running handlers to finish.
#ifndef CARBONROUTE_NET_HTTP_SERVER_H_
#define CARBONROUTE_NET_HTTP_SERVER_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

struct MHD_Daemon;
struct MHD_Connection;

namespace carbonroute::net {

struct HttpServerRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // without the query string
  std::string query;   // after '?', re-encoded (RFC 3986); empty if none
  std::string body;
};

// A reply body produced while it is sent, for one too large to build whole
// (the collector's /metrics at thousands of peers): memory stays at what the
// stream keeps plus one piece. Read on one server thread, one call at a time.
class BodyStream {
 public:
  virtual ~BodyStream() = default;
  // Copies the body's next bytes, at most `max` (> 0), into `out` and returns
  // how many; 0 only once the body has ended.
  virtual std::size_t Read(char* out, std::size_t max) = 0;
};

struct HttpServerResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // When set, the body is this stream's (`body` is ignored). Shared so that a
  // response can be copied; the server drops its reference when the reply ends.
  std::shared_ptr<BodyStream> stream = nullptr;
};

using HttpHandler = std::function<HttpServerResponse(const HttpServerRequest&)>;

// PEM texts, not paths (net/web_config.h reads the files).
struct HttpServerTls {
  std::string certificate_pem;  // the server's certificate, then its chain
  std::string private_key_pem;
  std::string client_ca_pem;  // empty: no client certificate is asked for
  bool require_client_certificate = false;
  bool tls13_only = false;  // else TLS 1.2 and 1.3
};

struct HttpServerOptions {
  std::string listen_address;                 // "host:port" (IPv4, [IPv6] or a name); port 0 picks
  std::map<std::string, HttpHandler> routes;  // exact path → handler
  // Lower-case path → handler, matched ignoring ASCII case after `routes`, as
  // ASP.NET Core matches routes (the Carbon Aware SDK's Web API is one):
  // "/emissions/byLocation" finds "/emissions/bylocation".
  std::map<std::string, HttpHandler> case_insensitive_routes;
  int threads = 4;  // epoll threads, each serving many connections
  std::size_t max_body_bytes = 1 << 20;
  std::size_t max_buffered_body_bytes = 0;  // all requests' bodies at once; 0 = 4 × max_body_bytes
  bool gzip = true;
  int max_connections = 2048;                       // more are refused at accept
  absl::Duration idle_timeout = absl::Seconds(10);  // a connection silent this long is closed
  std::size_t connection_memory_bytes = 32 * 1024;  // request line + headers per connection
  std::optional<HttpServerTls> tls;
  std::map<std::string, std::string> basic_auth_users;  // user → bcrypt hash; empty: no auth
};

// Whether `hash` has the shape of a bcrypt hash crypt(3) verifies: $2a$, $2b$
// or $2y$, 60 characters (https://www.openwall.com/crypt/).
bool IsBcryptHash(absl::string_view hash);

// Smaller bodies are sent as they are: compressing them gains nothing.
inline constexpr std::size_t kGzipMinBytes = 1024;
// How much of a streamed body is asked for at a time (a chunk on the wire).
inline constexpr std::size_t kStreamPieceBytes = 32 * 1024;

class HttpServer {
 public:
  // Binds and starts serving. kUnavailable with the system's reason (e.g.
  // address in use) if the address cannot be bound; kInvalidArgument for a
  // malformed address, a TLS key or certificate that cannot be loaded, or a
  // user whose hash is not a bcrypt hash.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(HttpServerOptions options);
  ~HttpServer();

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound TCP port (the chosen one when the address asked for port 0).
  int port() const { return port_; }

 private:
  class Authenticator;
  struct LastMessage;
  explicit HttpServer(HttpServerOptions options);

  // The handler of `path` (routes, then case_insensitive_routes); nullptr if none.
  const HttpHandler* FindRoute(const std::string& path) const;

  const HttpServerOptions options_;
  const std::size_t max_buffered_bytes_;
  mutable std::atomic<std::size_t> buffered_bytes_{0};  // bodies being received, all connections
  std::unique_ptr<Authenticator> authenticator_;
  std::unique_ptr<LastMessage> last_message_;
  MHD_Daemon* daemon_ = nullptr;
  int port_ = 0;
};

}  // namespace carbonroute::net

#endif  // CARBONROUTE_NET_HTTP_SERVER_H_
