#include "net/curl_http_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "test/testing/fake_provider_server.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::net {
namespace {

using testing::FakeResponse;
using testing::IsOk;

TEST(CurlHttpClient, AStalledRequestHoldsUpNoOtherRequest) {
  // The collector polls its providers concurrently through one client: a
  // request to an upstream that never answers must not serialise the others.
  auto stalled = std::make_unique<testing::FakeProviderServer>();
  testing::FakeProviderServer answering;
  stalled->Script("/data", {{200, "", {}, FakeResponse::Mode::kHang}});
  answering.Script("/data", {{200, "ok", {}}});
  absl::StatusOr<std::unique_ptr<CurlHttpClient>> client = CurlHttpClient::Create("test");
  ASSERT_THAT(client, IsOk());

  std::atomic<bool> stalled_returned{false};
  std::thread stalled_call([&] {
    HttpRequest request;
    request.url = stalled->base_url() + "/data";
    request.timeout = absl::Seconds(20);
    static_cast<void>((*client)->Send(request));
    stalled_returned = true;
  });
  while (stalled->Count("/data") == 0) std::this_thread::yield();  // it is in flight

  HttpRequest request;
  request.url = answering.base_url() + "/data";
  absl::StatusOr<HttpResponse> answer = (*client)->Send(request);
  ASSERT_THAT(answer, IsOk());
  EXPECT_EQ(answer->body, "ok");
  EXPECT_FALSE(stalled_returned) << "the answering request waited for the stalled one";
  stalled.reset();  // closes the hanging connection
  stalled_call.join();
}

}  // namespace
}  // namespace carbonroute::net
