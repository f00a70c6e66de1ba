#include "net/http_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "net/curl_http_client.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::net {
namespace {

using testing::IsOk;
using testing::StatusIs;

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.max_body_bytes = 1024;
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

TEST_F(HttpServerTest, PortInUseIsUnavailable) {
  HttpServerOptions options;
  options.listen_address = absl::StrCat("127.0.0.1:", server_->port());
  EXPECT_THAT(HttpServer::Start(std::move(options)),
              StatusIs(absl::StatusCode::kUnavailable,
                       ::testing::HasSubstr("cannot listen on 127.0.0.1:")));
}

TEST_F(HttpServerTest, ClosedPortIsATransportError) {
  const int port = server_->port();
  server_.reset();
  net::HttpRequest request;
  request.url = absl::StrCat("http://127.0.0.1:", port, "/echo");
  EXPECT_THAT(http_->Send(request),
              StatusIs(absl::StatusCode::kUnavailable, ::testing::HasSubstr("failed")));
}

}  // namespace
}  // namespace carbonroute::net
