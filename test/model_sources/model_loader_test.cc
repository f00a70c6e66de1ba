#include "model_sources/model_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "net/curl_http_client.h"
#include "test/testing/fake_provider_server.h"

namespace carbonroute::model_sources {
namespace {

using ::testing::HasSubstr;

constexpr char kEmptyVector[] =
    R"({"status":"success","data":{"resultType":"vector","result":[]}})";

TEST(LoadModel, APrometheusUrlWithATrailingSlashIsJoinedWithOneSlash) {
  testing::FakeProviderServer prometheus;
  prometheus.Route("/api/v1/query", [](const testing::FakeRequest&) {
    return testing::FakeResponse{200, kEmptyVector, {}};
  });
  auto http = *net::CurlHttpClient::Create("test");
  ModelSources sources;
  sources.prometheus_url = prometheus.base_url() + "/";
  LoadedModel loaded = LoadModel(sources, *http, absl::FromUnixSeconds(1'800'000'000));
  EXPECT_EQ(loaded.sources_read, 1);
  ASSERT_FALSE(prometheus.requests().empty());
  EXPECT_THAT(prometheus.requests().front().target, ::testing::StartsWith("/api/v1/query?query="));
  // It answered, but there is nothing of carbonroute's: said in one line.
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_THAT(loaded.errors[0].message(), HasSubstr("answered, but has no carbonroute series"));
}

TEST(LoadModel, ACollectorUrlWithoutCarbonrouteSeriesIsSaidSo) {
  testing::FakeProviderServer other;
  other.Script("/metrics", {{200, "# a node_exporter, say\nnode_load1 0.5\n", {}}});
  auto http = *net::CurlHttpClient::Create("test");
  ModelSources sources;
  sources.metrics_urls = {other.base_url() + "/metrics"};
  LoadedModel loaded = LoadModel(sources, *http, absl::FromUnixSeconds(1'800'000'000));
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_THAT(loaded.errors[0].message(), HasSubstr("no carbonroute series"));
}

}  // namespace
}  // namespace carbonroute::model_sources
