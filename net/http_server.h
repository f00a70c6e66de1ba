// File: net/http_server.h
//
// A small HTTP/1.1 server over civetweb (Debian's libcivetweb, the server
// prometheus-cpp's Exposer also uses) with exact-path routing. The collector
// serves /metrics and /healthz with it; scheduler-lite serves the
// kube-scheduler extender's POST routes.
//
// Requests for an unknown path get 404; bodies larger than
// `max_body_bytes` get 413 without reaching a handler. Keep-alive
// connections are served with TCP_NODELAY and each reply in one write, so no
// reply waits for the client's delayed ACK (Nagle's algorithm, RFC 896). With
// `gzip`, a body of kGzipMinBytes or more goes gzip-compressed (RFC 1952) to a
// client whose Accept-Encoding admits it (Prometheus always asks).
//
// Thread safety: handlers run on civetweb's worker threads, concurrently; they
// must be thread-safe. Start()/~HttpServer() are called from one thread.
// The destructor stops the server and waits for running handlers to finish.
#ifndef CARBONROUTE_NET_HTTP_SERVER_H_
#define CARBONROUTE_NET_HTTP_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

struct mg_context;
struct mg_connection;

namespace carbonroute::net {

struct HttpServerRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // without the query string
  std::string query;   // after '?', undecoded; empty if none
  std::string body;
};

struct HttpServerResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using HttpHandler = std::function<HttpServerResponse(const HttpServerRequest&)>;

struct HttpServerOptions {
  std::string listen_address;                 // "host:port"; port 0 picks a free port
  std::map<std::string, HttpHandler> routes;  // exact path → handler
  int threads = 4;
  std::size_t max_body_bytes = 1 << 20;
  bool gzip = true;
};

// Smaller bodies are sent as they are: compressing them gains nothing.
inline constexpr std::size_t kGzipMinBytes = 1024;

class HttpServer {
 public:
  // Binds and starts serving. kUnavailable with civetweb's reason (e.g.
  // address in use) if the address cannot be bound; kInvalidArgument for a
  // malformed address.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(HttpServerOptions options);
  ~HttpServer();

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound TCP port (the chosen one when the address asked for port 0).
  int port() const { return port_; }

 private:
  explicit HttpServer(HttpServerOptions options) : options_(std::move(options)) {}
  static int HandleRequest(mg_connection* connection);

  const HttpServerOptions options_;
  mg_context* context_ = nullptr;
  int port_ = 0;
};

}  // namespace carbonroute::net

#endif  // CARBONROUTE_NET_HTTP_SERVER_H_
