#include "net/http_server.h"

#include <arpa/inet.h>
#include <crypt.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstdarg>
#include <cstring>
#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "net/gzip_body.h"
#include "net/url.h"

namespace carbonroute::net {

// Checks HTTP Basic credentials against bcrypt hashes (crypt(3) of libxcrypt,
// which knows $2a$, $2b$ and $2y$), remembering the digests of verified pairs.
class HttpServer::Authenticator {
 public:
  explicit Authenticator(std::map<std::string, std::string> users) : users_(std::move(users)) {}

  bool Allows(const char* user, const char* password) {
    if (user == nullptr || password == nullptr) return false;
    auto found = users_.find(user);
    // An unknown user costs a bcrypt run too, so that timing does not tell
    // which users exist.
    const std::string& hash = found != users_.end() ? found->second : kDummyHash;
    const std::string digest = Digest(user, password, hash);
    {
      absl::MutexLock lock(&mutex_);
      if (verified_.count(digest) > 0) return true;
    }
    crypt_data data{};
    const char* computed = crypt_r(password, hash.c_str(), &data);
    const bool match = computed != nullptr && found != users_.end() &&
                       std::strlen(computed) == hash.size() &&
                       gnutls_memcmp(computed, hash.data(), hash.size()) == 0;
    if (match) {
      absl::MutexLock lock(&mutex_);
      if (verified_.size() >= kMaxRemembered) verified_.clear();
      verified_.insert(digest);
    }
    return match;
  }

 private:
  // A bcrypt hash of nothing anyone knows, cost 10 like htpasswd -B.
  static inline const std::string kDummyHash =
      "$2y$10$abcdefghijklmnopqrstuu5LDeYdgTD9CMoGhgS0F6FlcbXqPhMTS";
  static constexpr std::size_t kMaxRemembered = 1024;

  static std::string Digest(const char* user, const char* password, const std::string& hash) {
    const std::string text =
        absl::StrCat(user, std::string(1, '\0'), password, std::string(1, '\0'), hash);
    std::array<unsigned char, 32> sha256{};
    gnutls_hash_fast(GNUTLS_DIG_SHA256, text.data(), text.size(), sha256.data());
    return std::string(sha256.begin(), sha256.end());
  }

  const std::map<std::string, std::string> users_;
  absl::Mutex mutex_;
  std::set<std::string> verified_ ABSL_GUARDED_BY(mutex_);
};

namespace {

// What one request has gathered between the access handler's calls.
struct RequestState {
  std::string body;
  std::size_t accounted = 0;  // bytes of body counted in the server's buffered_bytes_
};

// Whether the request's Accept-Encoding admits gzip (RFC 9110 §12.5.3: a
// coding listed with q=0 is refused).
bool AcceptsGzip(MHD_Connection* connection) {
  const char* header = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Accept-Encoding");
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

// A response with a copy of `body` and its Content-Type; null if out of memory.
MHD_Response* NewResponse(const std::string& content_type, const std::string& body) {
  MHD_Response* reply = MHD_create_response_from_buffer(body.size(), const_cast<char*>(body.data()),
                                                        MHD_RESPMEM_MUST_COPY);
  if (reply != nullptr) MHD_add_response_header(reply, "Content-Type", content_type.c_str());
  return reply;
}

// A response whose body is read from `stream` as the client takes it
// (chunked); null if out of memory.
MHD_Response* NewStreamResponse(const std::string& content_type,
                                std::shared_ptr<BodyStream> stream) {
  using Holder = std::shared_ptr<BodyStream>;
  static constexpr auto kRead = [](void* holder, uint64_t, char* out, size_t max) -> ssize_t {
    const std::size_t got = (*static_cast<Holder*>(holder))->Read(out, max);
    return got == 0 ? MHD_CONTENT_READER_END_OF_STREAM : static_cast<ssize_t>(got);
  };
  static constexpr auto kFree = [](void* holder) { delete static_cast<Holder*>(holder); };
  auto* holder = new Holder(std::move(stream));
  MHD_Response* reply =
      MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, kStreamPieceBytes, kRead, holder, kFree);
  if (reply == nullptr) {
    delete holder;
    return nullptr;
  }
  MHD_add_response_header(reply, "Content-Type", content_type.c_str());
  return reply;
}

MHD_Result QueueAndRelease(MHD_Connection* connection, int status, MHD_Response* reply) {
  const MHD_Result queued = MHD_queue_response(connection, static_cast<unsigned>(status), reply);
  MHD_destroy_response(reply);
  return queued;
}

MHD_Result ReplyStreamed(MHD_Connection* connection, const HttpServerResponse& response,
                         bool gzip) {
  std::shared_ptr<BodyStream> stream = response.stream;
  if (gzip) stream = GzipStream(std::move(stream));
  if (stream == nullptr) return MHD_NO;
  MHD_Response* reply = NewStreamResponse(response.content_type, std::move(stream));
  if (reply == nullptr) return MHD_NO;
  if (gzip) MHD_add_response_header(reply, "Content-Encoding", "gzip");
  MHD_add_response_header(reply, "Vary", "Accept-Encoding");
  return QueueAndRelease(connection, response.status, reply);
}

MHD_Result Reply(MHD_Connection* connection, const HttpServerResponse& response,
                 bool gzip = false) {
  if (response.stream != nullptr) return ReplyStreamed(connection, response, gzip);
  std::optional<std::string> compressed;
  if (gzip && response.body.size() >= kGzipMinBytes) compressed = Gzip(response.body);
  MHD_Response* reply =
      NewResponse(response.content_type, compressed ? *compressed : response.body);
  if (reply == nullptr) return MHD_NO;
  if (compressed) MHD_add_response_header(reply, "Content-Encoding", "gzip");
  if (gzip) MHD_add_response_header(reply, "Vary", "Accept-Encoding");
  return QueueAndRelease(connection, response.status, reply);
}

MHD_Result Text(MHD_Connection* connection, int status, std::string text) {
  return Reply(connection, {status, "text/plain; charset=utf-8", std::move(text)});
}

// The query string, from the arguments libmicrohttpd has decoded, encoded again.
std::string QueryOf(MHD_Connection* connection) {
  std::string query;
  // The sized form keeps a value's NUL bytes (%00): the handler sees what was sent.
  MHD_get_connection_values_n(
      connection, MHD_GET_ARGUMENT_KIND,
      [](void* out, MHD_ValueKind, const char* key, size_t key_size, const char* value,
         size_t value_size) -> MHD_Result {
        auto* text = static_cast<std::string*>(out);
        absl::StrAppend(text, text->empty() ? "" : "&",
                        UrlEncode(absl::string_view(key, key_size)));
        if (value != nullptr) {
          absl::StrAppend(text, "=", UrlEncode(absl::string_view(value, value_size)));
        }
        return MHD_YES;
      },
      &query);
  return query;
}

gnutls_session_t TlsSession(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
  return info != nullptr ? static_cast<gnutls_session_t>(info->tls_session) : nullptr;
}

// Whether the client's certificate (if any) verifies against the client CA;
// a missing one passes only when not required.
bool ClientCertificateAccepted(MHD_Connection* connection, bool required) {
  gnutls_session_t session = TlsSession(connection);
  if (session == nullptr) return false;
  unsigned count = 0;
  if (gnutls_certificate_get_peers(session, &count) == nullptr || count == 0) return !required;
  unsigned status = 0;
  return gnutls_certificate_verify_peers2(session, &status) == GNUTLS_E_SUCCESS && status == 0;
}

// Where `address` ("host:port", "[v6]:port", ":port") binds.
absl::StatusOr<sockaddr_storage> ResolveListenAddress(const std::string& address) {
  const std::size_t colon = address.rfind(':');
  int port = -1;
  if (address.empty() || colon == std::string::npos ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen address \"", address, "\" is not host:port"));
  }
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) host = "0.0.0.0";
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const int error = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (error != 0 || found == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "listen address \"", address, "\": cannot resolve \"", host, "\": ", gai_strerror(error)));
  }
  sockaddr_storage bound{};
  std::memcpy(&bound, found->ai_addr, found->ai_addrlen);
  freeaddrinfo(found);
  if (bound.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&bound)->sin_port = htons(static_cast<uint16_t>(port));
  } else {
    reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port = htons(static_cast<uint16_t>(port));
  }
  return bound;
}

}  // namespace

bool IsBcryptHash(absl::string_view hash) {
  return hash.size() == 60 && (absl::StartsWith(hash, "$2a$") || absl::StartsWith(hash, "$2b$") ||
                               absl::StartsWith(hash, "$2y$"));
}

// libmicrohttpd's last message, for Start()'s error (e.g. why bind failed).
// Later ones (a client's failed TLS handshake, a malformed request) are the
// clients' errors, not the server's: they only replace it.
struct HttpServer::LastMessage {
  static void Log(void* context, const char* format, va_list arguments) {
    char text[512];
    std::vsnprintf(text, sizeof(text), format, arguments);
    auto* self = static_cast<LastMessage*>(context);
    absl::MutexLock lock(&self->mutex);
    self->text = std::string(absl::StripAsciiWhitespace(text));
  }
  std::string Get() {
    absl::MutexLock lock(&mutex);
    return text;
  }
  absl::Mutex mutex;
  std::string text ABSL_GUARDED_BY(mutex);
};

HttpServer::HttpServer(HttpServerOptions options)
    : options_(std::move(options)),
      max_buffered_bytes_(options_.max_buffered_body_bytes > 0 ? options_.max_buffered_body_bytes
                                                               : 4 * options_.max_body_bytes),
      last_message_(std::make_unique<LastMessage>()) {
  if (!options_.basic_auth_users.empty()) {
    authenticator_ = std::make_unique<Authenticator>(options_.basic_auth_users);
  }
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerOptions options) {
  absl::StatusOr<sockaddr_storage> address = ResolveListenAddress(options.listen_address);
  if (!address.ok()) return address.status();
  for (const auto& [user, hash] : options.basic_auth_users) {
    if (!IsBcryptHash(hash)) {
      return absl::InvalidArgumentError(
          absl::StrCat("basic_auth_users: the hash of user \"", user,
                       "\" is not a bcrypt hash ($2a$, $2b$ or $2y$, 60 characters; htpasswd -nB "
                       "USER makes one)"));
    }
  }
  std::unique_ptr<HttpServer> server(new HttpServer(std::move(options)));
  const HttpServerOptions& o = server->options_;

  static constexpr auto kHandle = [](void* context, MHD_Connection* connection, const char* url,
                                     const char* method, const char*, const char* upload_data,
                                     size_t* upload_data_size, void** request_context) {
    const auto* self = static_cast<const HttpServer*>(context);
    auto* state = static_cast<RequestState*>(*request_context);
    if (state == nullptr) {  // the headers are in; the body, if any, is not
      state = new RequestState;
      *request_context = state;
      const absl::string_view verb = method;
      if (verb != "GET" && verb != "HEAD" && verb != "POST") {  // RFC 9110 §9.1
        return Text(connection, 501, absl::StrCat("method ", verb, " not implemented\n"));
      }
      if (self->options_.tls && !self->options_.tls->client_ca_pem.empty() &&
          !ClientCertificateAccepted(connection, self->options_.tls->require_client_certificate)) {
        return Text(connection, 403, "a valid client certificate is required\n");
      }
      if (self->authenticator_ != nullptr) {
        char* password = nullptr;
        char* user = MHD_basic_auth_get_username_password(connection, &password);
        const bool allowed = self->authenticator_->Allows(user, password);
        MHD_free(user);
        MHD_free(password);
        if (!allowed) {
          MHD_Response* reply = NewResponse("text/plain; charset=utf-8", "unauthorized\n");
          if (reply == nullptr) return MHD_NO;
          const MHD_Result queued =
              MHD_queue_basic_auth_fail_response(connection, "carbonroute", reply);
          MHD_destroy_response(reply);
          return queued;
        }
      }
      if (self->FindRoute(url) == nullptr) {
        return Text(connection, 404, absl::StrCat("no such path: ", url, "\n"));
      }
      const char* length =
          MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
      uint64_t declared = 0;
      if (length != nullptr && absl::SimpleAtoi(length, &declared) &&
          declared > self->options_.max_body_bytes) {
        return Text(connection, 413,
                    absl::StrCat("request body over ", self->options_.max_body_bytes, " bytes\n"));
      }
      return MHD_YES;
    }
    if (*upload_data_size > 0) {  // a piece of the body
      const std::size_t size = *upload_data_size;
      if (state->body.size() + size > self->options_.max_body_bytes ||
          self->buffered_bytes_.fetch_add(size) + size > self->max_buffered_bytes_) {
        self->buffered_bytes_.fetch_sub(size);
        return MHD_NO;  // a chunked body over the limit, or too many at once: closed
      }
      state->accounted += size;
      state->body.append(upload_data, size);
      *upload_data_size = 0;
      return MHD_YES;
    }
    HttpServerRequest request;
    request.method = method;
    request.path = url;
    request.query = QueryOf(connection);
    request.body = std::move(state->body);
    const HttpServerResponse response = (*self->FindRoute(request.path))(request);
    return Reply(connection, response, self->options_.gzip && AcceptsGzip(connection));
  };
  static constexpr auto kCompleted = [](void* context, MHD_Connection*, void** request_context,
                                        MHD_RequestTerminationCode) {
    auto* state = static_cast<RequestState*>(*request_context);
    if (state != nullptr) static_cast<HttpServer*>(context)->buffered_bytes_ -= state->accounted;
    delete state;
    *request_context = nullptr;
  };
  // With a required client certificate the TLS handshake itself fails
  // without a valid one (the session exists, unshaken, when a connection starts).
  static constexpr auto kConnectionStarted = [](void* context, MHD_Connection* connection, void**,
                                                MHD_ConnectionNotificationCode code) {
    const auto* self = static_cast<const HttpServer*>(context);
    if (code != MHD_CONNECTION_NOTIFY_STARTED || !self->options_.tls ||
        !self->options_.tls->require_client_certificate) {
      return;
    }
    if (gnutls_session_t session = TlsSession(connection); session != nullptr) {
      gnutls_certificate_server_set_request(session, GNUTLS_CERT_REQUIRE);
      gnutls_session_set_verify_cert(session, nullptr, 0);
    }
  };

  unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
  if (address->ss_family == AF_INET6) flags |= MHD_USE_IPv6;
  if (o.tls) flags |= MHD_USE_TLS;
  using Completed = void (*)(void*, MHD_Connection*, void**, MHD_RequestTerminationCode);
  using Started = void (*)(void*, MHD_Connection*, void**, MHD_ConnectionNotificationCode);
  using Logger = void (*)(void*, const char*, va_list);
  std::vector<MHD_OptionItem> items = {
      {MHD_OPTION_SOCK_ADDR, 0, &*address},
      {MHD_OPTION_THREAD_POOL_SIZE, o.threads, nullptr},
      {MHD_OPTION_CONNECTION_LIMIT, o.max_connections, nullptr},
      {MHD_OPTION_CONNECTION_TIMEOUT, static_cast<intptr_t>(absl::ToInt64Seconds(o.idle_timeout)),
       nullptr},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<intptr_t>(o.connection_memory_bytes),
       nullptr},
      {MHD_OPTION_NOTIFY_COMPLETED, reinterpret_cast<intptr_t>(static_cast<Completed>(kCompleted)),
       server.get()},
      {MHD_OPTION_EXTERNAL_LOGGER,
       reinterpret_cast<intptr_t>(static_cast<Logger>(LastMessage::Log)),
       server->last_message_.get()},
  };
  if (o.tls) {
    items.push_back(
        {MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(o.tls->certificate_pem.c_str())});
    items.push_back(
        {MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(o.tls->private_key_pem.c_str())});
    // TLS 1.2 and 1.3 only, as exporter-toolkit's default min_version: TLS12.
    items.push_back(
        {MHD_OPTION_HTTPS_PRIORITIES, 0,
         const_cast<char*>(o.tls->tls13_only ? "NORMAL:-VERS-ALL:+VERS-TLS1.3"
                                             : "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2")});
    if (!o.tls->client_ca_pem.empty()) {
      items.push_back(
          {MHD_OPTION_HTTPS_MEM_TRUST, 0, const_cast<char*>(o.tls->client_ca_pem.c_str())});
      items.push_back({MHD_OPTION_NOTIFY_CONNECTION,
                       reinterpret_cast<intptr_t>(static_cast<Started>(kConnectionStarted)),
                       server.get()});
    }
  }
  items.push_back({MHD_OPTION_END, 0, nullptr});
  using Handler = MHD_Result (*)(void*, MHD_Connection*, const char*, const char*, const char*,
                                 const char*, size_t*, void**);
  server->daemon_ = MHD_start_daemon(flags, 0, nullptr, nullptr, static_cast<Handler>(kHandle),
                                     server.get(), MHD_OPTION_ARRAY, items.data(), MHD_OPTION_END);
  if (server->daemon_ == nullptr) {
    std::string last = server->last_message_->Get();
    // libmicrohttpd names the port it was given (0: the address came as a
    // sockaddr); the address is named once below, so only the cause is kept.
    if (absl::StartsWith(last, "Failed to bind to port ")) {
      const std::size_t cause = last.find(": ");
      if (cause != std::string::npos) last = last.substr(cause + 2);
    }
    const bool tls_failed =
        o.tls && (absl::StrContains(last, "certificate") || absl::StrContains(last, "key") ||
                  absl::StrContains(last, "TLS"));
    const std::string message =
        absl::StrCat("cannot listen on ", o.listen_address, ": ",
                     last.empty() ? "libmicrohttpd refused to start" : last);
    if (tls_failed) return absl::InvalidArgumentError(message);
    return absl::UnavailableError(message);
  }
  const MHD_DaemonInfo* info = MHD_get_daemon_info(server->daemon_, MHD_DAEMON_INFO_BIND_PORT);
  server->port_ = info != nullptr ? info->port : 0;
  return server;
}

const HttpHandler* HttpServer::FindRoute(const std::string& path) const {
  if (auto exact = options_.routes.find(path); exact != options_.routes.end()) {
    return &exact->second;
  }
  auto folded = options_.case_insensitive_routes.find(absl::AsciiStrToLower(path));
  return folded == options_.case_insensitive_routes.end() ? nullptr : &folded->second;
}

HttpServer::~HttpServer() {
  if (daemon_ != nullptr) MHD_stop_daemon(daemon_);
}

}  // namespace carbonroute::net
