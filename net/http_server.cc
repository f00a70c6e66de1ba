#include "net/http_server.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "zlib.h"

namespace carbonroute::net {
namespace {

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "";
  }
}

// Whether the request's Accept-Encoding admits gzip (RFC 9110 §12.5.3: a
// coding listed with q=0 is refused).
bool AcceptsGzip(mg_connection* connection) {
  const char* header = mg_get_header(connection, "Accept-Encoding");
  if (header == nullptr) return false;
  for (absl::string_view coding : absl::StrSplit(header, ',')) {
    std::vector<absl::string_view> parts = absl::StrSplit(coding, ';');
    if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(parts[0]), "gzip") &&
        absl::StripAsciiWhitespace(parts[0]) != "*") {
      continue;
    }
    for (std::size_t i = 1; i < parts.size(); ++i) {
      absl::string_view q = absl::StripAsciiWhitespace(parts[i]);
      if (absl::ConsumePrefix(&q, "q=") && absl::StripTrailingAsciiWhitespace(q).find_first_not_of(
                                               "0.") == absl::string_view::npos) {
        return false;
      }
    }
    return true;
  }
  return false;
}

// `body` as a gzip member (RFC 1952) at zlib's fastest level; nullopt if zlib fails.
std::optional<std::string> Gzip(absl::string_view body) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return std::nullopt;
  }
  std::string out(deflateBound(&stream, body.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  stream.avail_in = static_cast<uInt>(body.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return std::nullopt;
  return out;
}

// Writes the head and the body with one write, so that no reply leaves in two
// segments for Nagle's algorithm to hold back (TCP_NODELAY is set as well).
void Reply(mg_connection* connection, const HttpServerResponse& response, bool gzip = false) {
  std::optional<std::string> compressed;
  if (gzip && response.body.size() >= kGzipMinBytes) compressed = Gzip(response.body);
  const std::string& body = compressed ? *compressed : response.body;
  std::string reply =
      absl::StrCat("HTTP/1.1 ", response.status, " ", ReasonPhrase(response.status), "\r\n",
                   "Content-Type: ", response.content_type, "\r\n", "Content-Length: ", body.size(),
                   "\r\n", compressed ? "Content-Encoding: gzip\r\n" : "",
                   gzip ? "Vary: Accept-Encoding\r\n" : "", "\r\n");
  reply.append(body);
  mg_write(connection, reply.data(), reply.size());
}

}  // namespace

int HttpServer::HandleRequest(mg_connection* connection) {
  const mg_request_info* info = mg_get_request_info(connection);
  const auto* server = static_cast<const HttpServer*>(mg_get_user_data(mg_get_context(connection)));
  HttpServerRequest request;
  request.method = info->request_method;
  request.path = info->local_uri != nullptr ? info->local_uri : "/";
  request.query = info->query_string != nullptr ? info->query_string : "";

  auto route = server->options_.routes.find(request.path);
  if (route == server->options_.routes.end()) {
    Reply(connection,
          {404, "text/plain; charset=utf-8", absl::StrCat("no such path: ", request.path, "\n")});
    return 1;
  }
  const std::size_t limit = server->options_.max_body_bytes;
  const HttpServerResponse too_large{413, "text/plain; charset=utf-8",
                                     absl::StrCat("request body over ", limit, " bytes\n")};
  if (info->content_length > 0 && static_cast<std::size_t>(info->content_length) > limit) {
    Reply(connection, too_large);
    return 1;
  }
  char buffer[16 * 1024];
  int read = 0;
  while ((read = mg_read(connection, buffer, sizeof(buffer))) > 0) {
    request.body.append(buffer, static_cast<std::size_t>(read));
    if (request.body.size() > limit) {
      Reply(connection, too_large);
      return 1;
    }
  }
  Reply(connection, route->second(request), server->options_.gzip && AcceptsGzip(connection));
  return 1;
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerOptions options) {
  static std::once_flag init;
  std::call_once(init, [] { mg_init_library(0); });

  const std::string& address = options.listen_address;
  if (address.empty() || address.rfind(':') == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen address \"", address, "\" is not host:port"));
  }
  std::unique_ptr<HttpServer> server(new HttpServer(std::move(options)));
  const std::string threads = std::to_string(server->options_.threads);
  const char* config[] = {"listening_ports",
                          server->options_.listen_address.c_str(),
                          "num_threads",
                          threads.c_str(),
                          "request_timeout_ms",
                          "10000",
                          "enable_keep_alive",
                          "yes",
                          "tcp_nodelay",
                          "1",
                          nullptr};
  mg_callbacks callbacks{};
  callbacks.begin_request = &HttpServer::HandleRequest;
  mg_init_data init_data{&callbacks, server.get(), config};
  char error_text[256] = "";
  unsigned error_code = 0;
  mg_error_data error{&error_code, error_text, sizeof(error_text)};
  server->context_ = mg_start2(&init_data, &error);
  if (server->context_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", server->options_.listen_address, ": ", error_text));
  }
  mg_server_port ports[4];
  const int count = mg_get_server_ports(server->context_, 4, ports);
  server->port_ = count > 0 ? ports[0].port : 0;
  return server;
}

namespace {

// One TCP connection to the listening socket at `host`:`port`, closed at
// once. A wildcard host is reached through loopback. Best effort.
void Knock(std::string host, int port) {
  if (!host.empty() && host.front() == '[') host = host.substr(1, host.size() - 2);
  sockaddr_storage address{};
  socklen_t length = 0;
  auto* in = reinterpret_cast<sockaddr_in*>(&address);
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&address);
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (inet_pton(AF_INET, host.c_str(), &in->sin_addr) == 1) {
    in->sin_family = AF_INET;
    in->sin_port = htons(static_cast<uint16_t>(port));
    length = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, host.c_str(), &in6->sin6_addr) == 1) {
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(static_cast<uint16_t>(port));
    length = sizeof(sockaddr_in6);
  } else {
    return;  // a host name: stopping takes up to 2 s
  }
  const int fd = socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  static_cast<void>(connect(fd, reinterpret_cast<const sockaddr*>(&address), length));  // a knock
  close(fd);
}

}  // namespace

HttpServer::~HttpServer() {
  if (context_ == nullptr) return;
  // civetweb's master thread sees mg_stop's flag only when its poll() on the
  // listening socket returns, which without a connection is every 2 s
  // (SOCKET_TIMEOUT_QUANTUM): the collector took 2 s to exit on SIGTERM.
  // Connecting makes the poll return at once; repeated, since the first
  // knock may come before mg_stop has raised the flag.
  std::atomic<bool> stopped{false};
  std::thread stopping([&] {
    mg_stop(context_);
    stopped = true;
  });
  const std::string& address = options_.listen_address;
  const std::string host = address.substr(0, address.rfind(':'));
  for (int knock = 0; knock < 100 && !stopped; ++knock) {
    Knock(host, port_);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stopping.join();
}

}  // namespace carbonroute::net
