#include "test/testing/fake_kube_api_server.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "net/url.h"
#include "test/testing/loopback_listener.h"

namespace carbonroute::testing {

// One accepted connection, plain or TLS.
struct FakeKubeApiServer::Connection {
  int fd = -1;
  SSL* ssl = nullptr;
  ~Connection() {
    if (ssl != nullptr) {
      SSL_shutdown(ssl);
      SSL_free(ssl);
    }
    close(fd);
  }
  bool Write(absl::string_view data) const {
    while (!data.empty()) {
      const int n = ssl != nullptr
                        ? SSL_write(ssl, data.data(), static_cast<int>(data.size()))
                        : static_cast<int>(send(fd, data.data(), data.size(), MSG_NOSIGNAL));
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  int Read(char* buffer, int size) const {
    return ssl != nullptr ? SSL_read(ssl, buffer, size)
                          : static_cast<int>(recv(fd, buffer, static_cast<std::size_t>(size), 0));
  }
};

namespace {

std::string Response(int status, absl::string_view body) {
  return absl::StrCat("HTTP/1.1 ", status, " Fake\r\nContent-Type: application/json\r\n",
                      "Content-Length: ", body.size(), "\r\nConnection: close\r\n\r\n", body);
}

std::string StatusBody(int code, absl::string_view reason) {
  return absl::StrCat(R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"fake )",
                      reason, R"(","reason":")", reason, R"(","code":)", code, "}");
}

std::string Chunk(absl::string_view data) {
  return absl::StrCat(absl::Hex(data.size()), "\r\n", data, "\r\n");
}

}  // namespace

FakeKubeApiServer::FakeKubeApiServer(const std::string& cert_file, const std::string& key_file) {
  // A client that hangs up mid-handshake (it refused the certificate) must
  // not end the test process: a write to its socket then fails instead.
  std::signal(SIGPIPE, SIG_IGN);
  if (!cert_file.empty()) {
    SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
    if (ctx == nullptr || SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      std::fprintf(stderr, "FakeKubeApiServer: cannot load %s\n", cert_file.c_str());
      std::abort();
    }
    ssl_ctx_ = ctx;
  }
  listen_fd_ = ListenOnLoopback("FakeKubeApiServer", port_);
  if (pipe(wake_fds_) != 0) std::abort();
  thread_ = std::thread([this] { Serve(); });
}

FakeKubeApiServer::~FakeKubeApiServer() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  const char byte = 'x';
  if (write(wake_fds_[1], &byte, 1) < 0) std::abort();
  thread_.join();
  for (std::thread& handler : handlers_) handler.join();
  close(listen_fd_);
  close(wake_fds_[0]);
  close(wake_fds_[1]);
  if (ssl_ctx_ != nullptr) SSL_CTX_free(static_cast<SSL_CTX*>(ssl_ctx_));
}

void FakeKubeApiServer::RequireClientCertificates(const std::string& ca_file) {
  auto* ctx = static_cast<SSL_CTX*>(ssl_ctx_);
  if (ctx == nullptr || SSL_CTX_load_verify_locations(ctx, ca_file.c_str(), nullptr) != 1) {
    std::fprintf(stderr, "FakeKubeApiServer: cannot require client certificates\n");
    std::abort();
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  // Without a session id context OpenSSL refuses to resume a verified
  // client's session (libcurl resumes on its next connection).
  static constexpr unsigned char kContext[] = "carbonroute-fake-kube-api";
  SSL_CTX_set_session_id_context(ctx, kContext, sizeof(kContext) - 1);
}

void FakeKubeApiServer::RequireAuthorization(const std::string& authorization) {
  absl::MutexLock lock(&mutex_);
  required_authorization_ = authorization;
}

std::string FakeKubeApiServer::base_url() const {
  return absl::StrCat(ssl_ctx_ != nullptr ? "https" : "http", "://127.0.0.1:", port_);
}

void FakeKubeApiServer::SetNodes(std::vector<std::string> nodes_json,
                                 std::string resource_version) {
  absl::MutexLock lock(&mutex_);
  nodes_ = std::move(nodes_json);
  resource_version_ = std::move(resource_version);
}

void FakeKubeApiServer::FailLists(int status, int count) {
  absl::MutexLock lock(&mutex_);
  list_failure_status_ = status;
  list_failures_ = count;
}

void FakeKubeApiServer::FailNextWatch(int status) {
  absl::MutexLock lock(&mutex_);
  next_watch_status_ = status;
}

void FakeKubeApiServer::SendEvent(const std::string& event_json) {
  absl::MutexLock lock(&mutex_);
  events_.push_back(event_json);
}

void FakeKubeApiServer::BroadcastEvent(const std::string& event_json) {
  absl::MutexLock lock(&mutex_);
  broadcast_.push_back(event_json);
}

void FakeKubeApiServer::EndWatch() {
  absl::MutexLock lock(&mutex_);
  watch_command_ = WatchCommand::kEnd;
}

void FakeKubeApiServer::DropWatch() {
  absl::MutexLock lock(&mutex_);
  watch_command_ = WatchCommand::kDrop;
}

bool FakeKubeApiServer::AwaitWatches(int count, absl::Duration timeout) {
  absl::MutexLock lock(&mutex_);
  auto opened = [this, count]()
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return watches_opened_ >= count; };
  return mutex_.AwaitWithTimeout(absl::Condition(&opened), timeout);
}

std::vector<KubeApiRequest> FakeKubeApiServer::requests() const {
  absl::MutexLock lock(&mutex_);
  return requests_;
}

void FakeKubeApiServer::Serve() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fds_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents != 0) return;
    const int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    auto connection = std::make_unique<Connection>();
    connection->fd = fd;
    handlers_.emplace_back(
        [this, c = connection.release()] { Handle(std::unique_ptr<Connection>(c)); });
  }
}

void FakeKubeApiServer::Handle(std::unique_ptr<Connection> connection) {
  if (ssl_ctx_ != nullptr) {
    connection->ssl = SSL_new(static_cast<SSL_CTX*>(ssl_ctx_));
    SSL_set_fd(connection->ssl, connection->fd);
    if (SSL_accept(connection->ssl) != 1) return;  // e.g. the client refused the certificate
  }
  std::string head;
  char buffer[4096];
  while (head.find("\r\n\r\n") == std::string::npos) {
    const int n = connection->Read(buffer, sizeof(buffer));
    if (n <= 0) return;
    head.append(buffer, static_cast<std::size_t>(n));
  }
  const std::size_t head_end = head.find("\r\n\r\n");
  std::vector<std::string> lines = absl::StrSplit(head.substr(0, head_end), "\r\n");
  std::vector<std::string> first = absl::StrSplit(lines[0], ' ');
  KubeApiRequest request;
  const std::string method = first[0];
  request.method = method;
  if (connection->ssl != nullptr) {
    if (const char* name = SSL_get_servername(connection->ssl, TLSEXT_NAMETYPE_host_name)) {
      request.server_name = name;
    }
    if (X509* peer = SSL_get_peer_certificate(connection->ssl); peer != nullptr) {
      char cn[256] = {};
      X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof(cn) - 1);
      request.client_cn = cn;
      X509_free(peer);
    }
  }
  request.target = first.size() > 1 ? first[1] : "";
  std::size_t content_length = 0;
  std::string content_type;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::size_t colon = lines[i].find(':');
    if (colon == std::string::npos) continue;
    const std::string name = lines[i].substr(0, colon);
    const std::string value(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
    if (absl::EqualsIgnoreCase(name, "authorization")) request.authorization = value;
    if (absl::EqualsIgnoreCase(name, "content-type")) content_type = value;
    if (absl::EqualsIgnoreCase(name, "content-length") &&
        !absl::SimpleAtoi(value, &content_length)) {
      content_length = 0;
    }
  }
  std::string body = head.substr(head_end + 4);
  while (body.size() < content_length) {
    const int n = connection->Read(buffer, sizeof(buffer));
    if (n <= 0) return;
    body.append(buffer, static_cast<std::size_t>(n));
  }
  const std::size_t question = request.target.find('?');
  const std::string path = request.target.substr(0, question);
  const std::string query =
      question == std::string::npos ? "" : request.target.substr(question + 1);
  request.watch = net::QueryParameter(query, "watch").value_or("") == "true";
  {
    absl::MutexLock lock(&mutex_);
    requests_.push_back(request);
    if (!required_authorization_.empty() && request.authorization != required_authorization_) {
      connection->Write(Response(401, StatusBody(401, "Unauthorized")));
      return;
    }
  }
  if (path == "/api/v1/nodes" && request.watch) {
    StreamWatch(*connection);
    return;
  }
  // Jobs, Pods (all, or a namespace's) and served custom resources.
  if (FakeBatchApi* const batch = batch_.load(); batch != nullptr && request.watch) {
    if (const auto collection = batch->WatchedCollection(path)) {
      StreamBatchWatch(*connection, *batch, collection->first, query, collection->second);
      return;
    }
  }
  if (FakeBatchApi* const batch = batch_.load();
      batch != nullptr && !absl::StartsWith(path, "/api/v1/nodes")) {
    const auto [status, answer] = batch->Handle(method, request.target, content_type, body);
    connection->Write(Response(status, answer));
    return;
  }
  absl::MutexLock lock(&mutex_);
  if (path == "/api/v1/nodes") {
    if (list_failures_ > 0) {
      --list_failures_;
      connection->Write(
          Response(list_failure_status_, StatusBody(list_failure_status_, "Failure")));
      return;
    }
    std::size_t limit = nodes_.size(), offset = 0;
    if (auto text = net::QueryParameter(query, "limit");
        !text || !absl::SimpleAtoi(*text, &limit)) {
      limit = nodes_.size();
    }
    if (auto token = net::QueryParameter(query, "continue");
        !token || !absl::SimpleAtoi(*token, &offset)) {
      offset = 0;
    }
    const std::size_t end = std::min(nodes_.size(), offset + std::max<std::size_t>(limit, 1));
    std::vector<std::string> page(
        nodes_.begin() + static_cast<std::ptrdiff_t>(std::min(offset, end)),
        nodes_.begin() + static_cast<std::ptrdiff_t>(end));
    const std::string continue_token = end < nodes_.size() ? absl::StrCat(end) : "";
    connection->Write(Response(
        200, absl::StrCat(R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":")",
                          resource_version_, R"(","continue":")", continue_token, R"("},"items":[)",
                          absl::StrJoin(page, ","), "]}")));
    return;
  }
  absl::string_view name = path;
  if (absl::ConsumePrefix(&name, "/api/v1/nodes/")) {
    for (const std::string& node : nodes_) {
      if (absl::StrContains(node, absl::StrCat("\"name\":\"", name, "\""))) {
        connection->Write(Response(200, node));
        return;
      }
    }
  }
  connection->Write(Response(404, StatusBody(404, "NotFound")));
}

void FakeKubeApiServer::StreamBatchWatch(Connection& connection, FakeBatchApi& batch,
                                         const std::string& resource, const std::string& query,
                                         const std::string& ns) {
  int64_t after = 0;
  if (!absl::SimpleAtoi(net::QueryParameter(query, "resourceVersion").value_or("0"), &after)) {
    after = 0;
  }
  const std::string selector = net::QueryParameter(query, "labelSelector").value_or("");
  {
    absl::MutexLock lock(&mutex_);
    ++watches_opened_;
  }
  if (!connection.Write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n")) {
    return;
  }
  for (;;) {
    {
      absl::MutexLock lock(&mutex_);
      if (stopping_) return;
    }
    std::string data;
    for (const std::string& line :
         batch.EventsAfter(resource, after, selector, absl::Milliseconds(100), ns)) {
      absl::StrAppend(&data, line, "\n");
      const nlohmann::json event = nlohmann::json::parse(line);
      int64_t version = 0;
      if (absl::SimpleAtoi(event["object"]["metadata"].value("resourceVersion", "0"), &version)) {
        after = std::max(after, version);
      }
    }
    if (!data.empty() && !connection.Write(Chunk(data))) return;
  }
}

void FakeKubeApiServer::StreamWatch(Connection& connection) {
  std::size_t broadcast_seen = 0;  // broadcast events before this watch opened are not its
  {
    absl::MutexLock lock(&mutex_);
    broadcast_seen = broadcast_.size();
    if (next_watch_status_ != 200) {
      const int status = next_watch_status_;
      next_watch_status_ = 200;
      connection.Write(Response(status, StatusBody(status, status == 410 ? "Expired" : "Failure")));
      return;
    }
    ++watches_opened_;
    watch_command_ = WatchCommand::kNone;
  }
  if (!connection.Write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n")) {
    return;
  }
  for (;;) {
    std::string data;
    WatchCommand command;
    {
      absl::MutexLock lock(&mutex_);
      auto ready = [this, broadcast_seen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
        return stopping_ || !events_.empty() || watch_command_ != WatchCommand::kNone ||
               broadcast_.size() > broadcast_seen;
      };
      mutex_.Await(absl::Condition(&ready));
      if (stopping_) return;
      while (!events_.empty()) {
        absl::StrAppend(&data, events_.front(), "\n");
        events_.pop_front();
      }
      for (; broadcast_seen < broadcast_.size(); ++broadcast_seen) {
        absl::StrAppend(&data, broadcast_[broadcast_seen], "\n");
      }
      command = watch_command_;
      watch_command_ = WatchCommand::kNone;
    }
    if (!data.empty() && !connection.Write(Chunk(data))) return;
    if (command == WatchCommand::kEnd) {
      connection.Write("0\r\n\r\n");
      return;
    }
    if (command == WatchCommand::kDrop) return;
  }
}

}  // namespace carbonroute::testing
