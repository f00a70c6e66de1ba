#include "polling/cache_errors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "contract/metric_labels.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "test/testing/captured_log.h"

namespace carbonroute::polling {
namespace {

namespace label = metric_labels;
using ::testing::HasSubstr;
using ::testing::Not;

using testing::CapturedLog;

std::string Exposition(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

TEST(CacheErrors, EveryOperationIsExportedAtZeroBeforeAnyFailure) {
  prometheus::Registry registry;
  exporter::CollectorMetrics metrics(registry);
  const std::string text = Exposition(registry);
  for (const char* operation : label::kCacheOperations) {
    EXPECT_THAT(text, HasSubstr(absl::StrCat("carbonroute_cache_errors_total{operation=\"",
                                             operation, "\"} 0")));
  }
}

TEST(CacheErrors, ADiskThatStaysFullIsCountedEveryTimeAndLoggedOnce) {
  prometheus::Registry registry;
  exporter::CollectorMetrics metrics(registry);
  CacheErrors errors(metrics);
  CapturedLog log;
  const absl::Status full = absl::ResourceExhaustedError("sqlite: database or disk is full");

  for (int poll = 0; poll < 5; ++poll) {
    errors.Record(label::kCachePut, full);
    errors.Record(label::kCachePutForecast, full);
    errors.Record(label::kCacheLookup, absl::OkStatus());  // reads still work
  }
  EXPECT_TRUE(errors.failing());
  EXPECT_EQ(log.lines(), 1);
  EXPECT_THAT(log.text(), HasSubstr("cache put failed"));
  EXPECT_THAT(log.text(), HasSubstr("disk is full"));
  const std::string text = Exposition(registry);
  EXPECT_THAT(text, HasSubstr("carbonroute_cache_errors_total{operation=\"put\"} 5"));
  EXPECT_THAT(text, HasSubstr("carbonroute_cache_errors_total{operation=\"put_forecast\"} 5"));
  EXPECT_THAT(text, HasSubstr("carbonroute_cache_errors_total{operation=\"lookup\"} 0"));
}

TEST(CacheErrors, RecoveryIsLoggedWhenTheLastFailingOperationSucceeds) {
  prometheus::Registry registry;
  exporter::CollectorMetrics metrics(registry);
  CacheErrors errors(metrics);
  CapturedLog log;
  const absl::Status full = absl::ResourceExhaustedError("disk is full");
  errors.Record(label::kCachePut, full);
  errors.Record(label::kCachePutMany, full);
  errors.Record(label::kCachePut, full);

  errors.Record(label::kCachePut, absl::OkStatus());
  EXPECT_TRUE(errors.failing());  // put_many has not succeeded yet
  EXPECT_THAT(log.text(), Not(HasSubstr("recovered")));
  errors.Record(label::kCachePutMany, absl::OkStatus());
  EXPECT_FALSE(errors.failing());
  EXPECT_THAT(log.text(), HasSubstr("cache recovered: put_many succeeds again after 3 failed"));
  EXPECT_EQ(log.lines(), 2);

  errors.Record(label::kCachePrune, full);  // a new episode is logged again
  EXPECT_EQ(log.lines(), 3);
  EXPECT_THAT(log.text(), HasSubstr("cache prune failed"));
}

TEST(CacheErrors, SuccessWithoutAFailureLogsNothing) {
  prometheus::Registry registry;
  exporter::CollectorMetrics metrics(registry);
  CacheErrors errors(metrics);
  CapturedLog log;
  errors.Record(label::kCachePut, absl::OkStatus());
  EXPECT_EQ(log.lines(), 0);
  EXPECT_FALSE(errors.failing());
}

}  // namespace
}  // namespace carbonroute::polling
