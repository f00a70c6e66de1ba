#include "net/http_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "net/curl_http_client.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::net {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::Not;
using testing::StatusIs;

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.max_body_bytes = 1024;
    options.routes["/big"] = [](const HttpServerRequest&) {
      std::string page;
      for (int i = 0; i < 2000; ++i) absl::StrAppend(&page, "metric{i=\"", i, "\"} ", i, "\n");
      return HttpServerResponse{200, "text/plain", page};
    };
    options.routes["/stream"] = [this](const HttpServerRequest&) {
      HttpServerResponse response{200, "text/plain", "ignored"};
      response.stream = std::make_shared<LinesStream>(kStreamedLines, streams_alive_);
      return response;
    };
    options.routes["/echo"] = [](const HttpServerRequest& request) {
      return HttpServerResponse{
          200, "text/plain",
          absl::StrCat(request.method, " ", request.path, "?", request.query, " ", request.body)};
    };
    absl::StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(std::move(options));
    ASSERT_THAT(server, IsOk());
    server_ = *std::move(server);
    auto http = net::CurlHttpClient::Create("test");
    ASSERT_THAT(http, IsOk());
    http_ = *std::move(http);
  }

  absl::StatusOr<net::HttpResponse> Send(const std::string& method, const std::string& path,
                                         const std::string& body = "") {
    net::HttpRequest request;
    request.method = method;
    request.url = absl::StrCat("http://127.0.0.1:", server_->port(), path);
    request.body = body;
    return http_->Send(request);
  }

  // The body of `lines` lines "line <i>\n", handed out at most 7 bytes at a time
  // every third Read, so pieces end mid-line; counts itself in `alive`.
  class LinesStream : public BodyStream {
   public:
    LinesStream(int lines, std::shared_ptr<std::atomic<int>> alive)
        : lines_(lines), alive_(std::move(alive)) {
      ++*alive_;
    }
    ~LinesStream() override { --*alive_; }
    std::size_t Read(char* out, std::size_t max) override {
      if (pending_.empty() && next_ < lines_) pending_ = absl::StrCat("line ", next_++, "\n");
      if (++reads_ % 3 == 0) max = std::min<std::size_t>(max, 7);
      std::size_t n = 0;
      while (n < max && (!pending_.empty() || next_ < lines_)) {
        if (pending_.empty()) pending_ = absl::StrCat("line ", next_++, "\n");
        const std::size_t take = std::min(max - n, pending_.size());
        std::memcpy(out + n, pending_.data(), take);
        pending_.erase(0, take);
        n += take;
      }
      return n;
    }

   private:
    const int lines_;
    int next_ = 0;
    int reads_ = 0;
    std::string pending_;
    std::shared_ptr<std::atomic<int>> alive_;
  };
  static constexpr int kStreamedLines = 100'000;
  static std::string StreamedBody() {
    std::string body;
    for (int i = 0; i < kStreamedLines; ++i) absl::StrAppend(&body, "line ", i, "\n");
    return body;
  }

  std::shared_ptr<std::atomic<int>> streams_alive_ = std::make_shared<std::atomic<int>>(0);
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<net::CurlHttpClient> http_;
};

TEST_F(HttpServerTest, RoutesByExactPath) {
  EXPECT_GT(server_->port(), 0);
  absl::StatusOr<net::HttpResponse> get = Send("GET", "/echo?x=1");
  ASSERT_THAT(get, IsOk());
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(get->body, "GET /echo?x=1 ");
  EXPECT_EQ(get->headers.at("content-type"), "text/plain");

  absl::StatusOr<net::HttpResponse> post = Send("POST", "/echo", "hello");
  ASSERT_THAT(post, IsOk());
  EXPECT_EQ(post->body, "POST /echo? hello");

  absl::StatusOr<net::HttpResponse> missing = Send("GET", "/echo/more");
  ASSERT_THAT(missing, IsOk());
  EXPECT_EQ(missing->status, 404);
}

TEST_F(HttpServerTest, OversizedBodyIsRefused) {
  absl::StatusOr<net::HttpResponse> response = Send("POST", "/echo", std::string(4096, 'x'));
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 413);
}

// A raw exchange on one connection: sends `request`, returns all that comes
// back until the server closes or 2 s pass without a byte.
std::string Exchange(int port, const std::string& request) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0) {
    timeval timeout{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    std::size_t sent = 0;
    while (sent < request.size()) {
      const ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    char buffer[4096];
    ssize_t n = 0;
    while ((n = recv(fd, buffer, sizeof(buffer), 0)) > 0) {
      reply.append(buffer, static_cast<std::size_t>(n));
    }
  }
  close(fd);
  return reply;
}

int Count(const std::string& text, const std::string& what) {
  int count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

TEST_F(HttpServerTest, AnUnknownMethodIsNotImplemented) {
  const std::string reply =
      Exchange(server_->port(), "FOO /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(reply, ::testing::StartsWith("HTTP/1.1 501"));
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  std::string requests;
  for (int i = 0; i < 20; ++i)
    absl::StrAppend(&requests, "GET /echo?n=", i, " HTTP/1.1\r\nHost: x\r\n\r\n");
  absl::StrAppend(&requests, "GET /echo?n=last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const std::string reply = Exchange(server_->port(), requests);
  EXPECT_EQ(Count(reply, "HTTP/1.1 200"), 21);
  EXPECT_LT(reply.find("GET /echo?n=3 "), reply.find("GET /echo?n=4 "));
  EXPECT_THAT(reply, HasSubstr("GET /echo?n=last "));
}

TEST_F(HttpServerTest, OversizedHeadersGet431) {
  const std::string reply =
      Exchange(server_->port(), absl::StrCat("GET /echo HTTP/1.1\r\nHost: x\r\nX-Big: ",
                                             std::string(100 * 1024, 'a'), "\r\n\r\n"));
  EXPECT_THAT(reply, ::testing::StartsWith("HTTP/1.1 431"));
}

TEST_F(HttpServerTest, AChunkedBodyOverTheLimitIsCutOff) {
  std::string request = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 8; ++i) absl::StrAppend(&request, "200\r\n", std::string(512, 'x'), "\r\n");
  absl::StrAppend(&request, "0\r\n\r\n");
  const std::string reply = Exchange(server_->port(), request);  // 4 KiB against 1 KiB
  EXPECT_THAT(reply, Not(HasSubstr("HTTP/1.1 200")));
  // The server is still there for the next client.
  absl::StatusOr<net::HttpResponse> after = Send("GET", "/echo");
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->status, 200);
}

TEST_F(HttpServerTest, PortInUseIsUnavailable) {
  HttpServerOptions options;
  options.listen_address = absl::StrCat("127.0.0.1:", server_->port());
  // The address once, with the cause; not libmicrohttpd's "port 0" (it was given a sockaddr).
  EXPECT_THAT(HttpServer::Start(std::move(options)),
              StatusIs(absl::StatusCode::kUnavailable,
                       absl::StrCat("cannot listen on 127.0.0.1:", server_->port(),
                                    ": Address already in use")));
}

TEST_F(HttpServerTest, ClosedPortIsATransportError) {
  const int port = server_->port();
  server_.reset();
  net::HttpRequest request;
  request.url = absl::StrCat("http://127.0.0.1:", port, "/echo");
  EXPECT_THAT(http_->Send(request),
              StatusIs(absl::StatusCode::kUnavailable, ::testing::HasSubstr("failed")));
}

// A client speaking HTTP/1.1 over one keep-alive TCP connection, byte for byte.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~RawConnection() { close(fd_); }
  bool connected() const { return connected_; }

  struct Answer {
    std::string head;  // status line and headers
    std::string body;
  };
  // Sends GET `path` with `extra_headers` and reads one whole response.
  Answer Get(const std::string& path, const std::string& extra_headers = "") const {
    const std::string request =
        absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: 127.0.0.1\r\n", extra_headers, "\r\n");
    if (send(fd_, request.data(), request.size(), MSG_NOSIGNAL) < 0) return {};
    std::string data;
    std::size_t head_end = std::string::npos;
    std::size_t length = 0;
    char buffer[65536];
    for (;;) {
      if (head_end == std::string::npos &&
          (head_end = data.find("\r\n\r\n")) != std::string::npos) {
        const std::string head = absl::AsciiStrToLower(data.substr(0, head_end));
        if (absl::StrContains(head, "transfer-encoding: chunked")) {
          return ReadChunked(data.substr(0, head_end), data.substr(head_end + 4));
        }
        const std::size_t at = head.find("content-length: ");
        if (at == std::string::npos) return {};
        length = std::stoul(head.substr(at + 16));
      }
      if (head_end != std::string::npos && data.size() >= head_end + 4 + length) break;
      const ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) return {};
      data.append(buffer, static_cast<std::size_t>(n));
    }
    return {data.substr(0, head_end), data.substr(head_end + 4, length)};
  }

 private:
  // The rest of a chunked reply (RFC 9112 §7.1), `data` being what came after the head.
  Answer ReadChunked(std::string head, std::string data) const {
    std::string body;
    char buffer[65536];
    std::size_t at = 0;
    for (;;) {
      const std::size_t line_end = data.find("\r\n", at);
      if (line_end != std::string::npos) {
        const std::size_t size = std::stoul(data.substr(at, line_end - at), nullptr, 16);
        if (data.size() >= line_end + 2 + size + 2) {
          if (size == 0) return {std::move(head), std::move(body)};  // no trailer fields
          body.append(data, line_end + 2, size);
          at = line_end + 2 + size + 2;
          continue;
        }
      }
      const ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) return {};
      data.append(buffer, static_cast<std::size_t>(n));
    }
  }

  int fd_ = -1;
  bool connected_ = false;
};

std::string Gunzip(const std::string& compressed) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) return "";
  std::string out;
  char buffer[65536];
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  int result = Z_OK;
  while (result == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    result = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof(buffer) - stream.avail_out);
  }
  inflateEnd(&stream);
  return result == Z_STREAM_END ? out : "";
}

TEST_F(HttpServerTest, CompressesLargeBodiesForClientsThatAskForGzip) {
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.connected());
  const RawConnection::Answer plain = connection.Get("/big");
  ASSERT_GT(plain.body.size(), 40'000u);
  EXPECT_THAT(plain.head, Not(HasSubstr("Content-Encoding")));

  const RawConnection::Answer gzipped = connection.Get("/big", "Accept-Encoding: gzip\r\n");
  EXPECT_THAT(gzipped.head, HasSubstr("Content-Encoding: gzip"));
  EXPECT_THAT(gzipped.head, HasSubstr("Vary: Accept-Encoding"));
  EXPECT_LT(gzipped.body.size(), plain.body.size() / 4);
  EXPECT_EQ(Gunzip(gzipped.body), plain.body);

  // Prometheus' own header; and a refusal (q=0) is honoured.
  EXPECT_THAT(connection.Get("/big", "Accept-Encoding: gzip, deflate; q=0.5\r\n").head,
              HasSubstr("Content-Encoding: gzip"));
  EXPECT_THAT(connection.Get("/big", "Accept-Encoding: identity, gzip;q=0\r\n").head,
              Not(HasSubstr("Content-Encoding")));
  // A small body is not worth compressing.
  EXPECT_THAT(connection.Get("/echo", "Accept-Encoding: gzip\r\n").head,
              Not(HasSubstr("Content-Encoding")));
}

TEST_F(HttpServerTest, AStreamedBodyGoesChunkedPlainOrGzippedOverOneKeepAliveConnection) {
  const std::string expected = StreamedBody();  // 1.1 MB
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.connected());
  const RawConnection::Answer plain = connection.Get("/stream");
  EXPECT_THAT(plain.head, HasSubstr("Transfer-Encoding: chunked"));
  EXPECT_THAT(plain.head, Not(HasSubstr("Content-Encoding")));
  EXPECT_EQ(plain.body, expected);

  // The same connection again (keep-alive after a chunked reply), compressed.
  const RawConnection::Answer gzipped = connection.Get("/stream", "Accept-Encoding: gzip\r\n");
  EXPECT_THAT(gzipped.head, HasSubstr("Content-Encoding: gzip"));
  EXPECT_THAT(gzipped.head, HasSubstr("Vary: Accept-Encoding"));
  EXPECT_LT(gzipped.body.size(), expected.size() / 4);
  EXPECT_EQ(Gunzip(gzipped.body), expected);

  // The connection still serves buffered replies, and no stream outlives its reply.
  EXPECT_EQ(connection.Get("/echo").body, "GET /echo? ");
  EXPECT_EQ(streams_alive_->load(), 0);
}

TEST_F(HttpServerTest, KeepAliveRequestsDoNotWaitForTheDelayedAck) {
  // Nagle's algorithm holding back the second segment of a reply until the
  // client's delayed ACK (at least 40 ms on Linux) made every keep-alive
  // request take ~44 ms. A loopback request takes well under a millisecond;
  // the bound below is far from both, so machine load cannot decide it.
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.connected());
  std::vector<double> ms;
  for (int i = 0; i < 30; ++i) {
    const absl::Time start = absl::Now();
    ASSERT_EQ(connection.Get(absl::StrCat("/echo?i=", i)).body,
              absl::StrCat("GET /echo?i=", i, " "));
    ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
  }
  std::sort(ms.begin(), ms.end());
  EXPECT_LT(ms[ms.size() / 2], 20.0) << "median of 30 keep-alive requests, ms";
}

}  // namespace
}  // namespace carbonroute::net
