#include "keda/keda_publisher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "kube/kube_client.h"
#include "test/keda/fake_carbon_aware_data.h"
#include "test/keda/operator_decoding.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_clock.h"

namespace carbonroute::keda {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using Json = nlohmann::json;

const absl::Time kPublishStart = absl::FromUnixSeconds(1795478400);  // 2026-11-24T00:00:00Z

class KedaPublisherTest : public ::testing::Test {
 protected:
  KedaPublisherTest() {
    api_.ServeResource("v1", "configmaps", /*namespaced=*/true, /*status_subresource=*/false);
    for (int h = 0; h < 3; ++h) {
      data_.observed["US-MIDA-PJM"].push_back(
          {kPublishStart + absl::Hours(h), kPublishStart + absl::Hours(h + 1), 300.0 + h});
    }
    SetForecast({380, 360, 340});
  }

  void SetForecast(const std::vector<double>& values) {
    carbon_aware::CachedForecast& forecast = data_.forecast["US-MIDA-PJM"];
    forecast.points.clear();
    for (std::size_t i = 0; i < values.size(); ++i) {
      forecast.points.push_back(
          {kPublishStart + absl::Hours(2 + i), kPublishStart + absl::Hours(3 + i), values[i]});
    }
    forecast.fetched_at = clock_.Now();
  }

  KedaPublisherOptions Options(const std::string& identity) {
    KedaPublisherOptions options;
    options.configmaps = {{"eastus", "carbon-intensity", "kube-system", "data"}};
    options.grid_location = [](const std::string& location) -> absl::StatusOr<std::string> {
      if (location == "eastus") return std::string("US-MIDA-PJM");
      return absl::NotFoundError("unknown location '" + location + "'");
    };
    options.lease = {
        .namespace_name = "kube-system", .name = "carbonroute-keda", .identity = identity};
    return options;
  }

  Json ConfigMap() const { return api_.Get("configmaps", "kube-system", "carbon-intensity"); }

  int Calls(const std::string& method) const {
    int count = 0;
    for (const testing::FakeApiCall& call : api_.calls()) {
      if (call.method == method && absl::StrContains(call.target, "/configmaps")) ++count;
    }
    return count;
  }

  testing::FakeClock clock_{kPublishStart + absl::Hours(2) + absl::Minutes(20)};
  testing::FakeBatchApi api_{[this] { return clock_.Now(); }};
  kube::KubeClient kube_{kube::KubeConnection{.server = "http://fake"}, api_};
  testing::FakeCarbonAwareData data_;
};

TEST_F(KedaPublisherTest, CreatesTheConfigMapThenUpdatesItInPlaceOnlyWhenTheForecastChanges) {
  KedaPublisher publisher(Options("replica-a"), kube_, data_, clock_);
  PublishCounts first = publisher.RunOnce();
  EXPECT_EQ(first.written, 1);
  Json configmap = ConfigMap();
  ASSERT_FALSE(configmap.is_null());
  EXPECT_EQ(configmap["metadata"]["labels"]["app.kubernetes.io/managed-by"], "carbonroute");
  EXPECT_FALSE(configmap.value("immutable", false));
  auto records = testing::DecodeAsTheOperatorDoes(configmap, "data");
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 5u);  // 2 observed, 3 forecast
  EXPECT_EQ(testing::CurrentSlot(*records, clock_.Now())->value, 380);
  EXPECT_EQ(Calls("POST"), 1);

  // Nothing new: nothing written.
  clock_.Advance(absl::Seconds(10));
  EXPECT_EQ(publisher.RunOnce().unchanged, 1);
  EXPECT_EQ(Calls("PATCH"), 1);  // the first attempt, which found none

  // Someone adds a key of their own; a new forecast patches the ConfigMap in place.
  Json added = ConfigMap();
  added["data"]["note"] = "kept";
  api_.PutObject("configmaps", added);
  SetForecast({370, 150, 340});
  EXPECT_EQ(publisher.RunOnce().written, 1);
  EXPECT_EQ(Calls("PATCH"), 2);
  EXPECT_EQ(Calls("DELETE"), 0);  // never absent
  configmap = ConfigMap();
  EXPECT_EQ(configmap["data"]["note"], "kept");
  EXPECT_EQ(configmap["data"]["minForecast"], "150.000000");
  records = testing::DecodeAsTheOperatorDoes(configmap, "data");
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(testing::CurrentSlot(*records, kPublishStart + absl::Minutes(3 * 60 + 30))->value, 150);
}

TEST_F(KedaPublisherTest, OnlyTheReplicaHoldingTheLeaseWrites) {
  KedaPublisher a(Options("replica-a"), kube_, data_, clock_);
  KedaPublisher b(Options("replica-b"), kube_, data_, clock_);
  EXPECT_EQ(a.RunOnce().written, 1);
  EXPECT_EQ(b.RunOnce().written, 0);
  EXPECT_TRUE(a.leading());
  EXPECT_FALSE(b.leading());
  SetForecast({100, 200, 300});
  EXPECT_EQ(b.RunOnce().written, 0);
  EXPECT_EQ(a.RunOnce().written, 1);
}

// Azure's exporter creates its ConfigMap immutable: replaced once, then updated in place.
TEST_F(KedaPublisherTest, AnImmutableConfigMapOfTheExporterIsReplacedOnceThenUpdatedInPlace) {
  api_.PutObject("configmaps",
                 Json{{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"metadata", {{"name", "carbon-intensity"}, {"namespace", "kube-system"}}},
                      {"immutable", true},
                      {"data", {{"message", "from the exporter"}}},
                      {"binaryData", {{"data", "W10="}}}});
  KedaPublisher publisher(Options("replica-a"), kube_, data_, clock_);
  EXPECT_EQ(publisher.RunOnce().written, 1);
  EXPECT_EQ(Calls("DELETE"), 1);
  EXPECT_EQ(Calls("POST"), 1);
  EXPECT_FALSE(ConfigMap().value("immutable", false));
  SetForecast({1, 2, 3});
  EXPECT_EQ(publisher.RunOnce().written, 1);
  EXPECT_EQ(Calls("DELETE"), 1);  // in place from now on
  EXPECT_EQ(ConfigMap()["data"]["minForecast"], "1.000000");
}

TEST_F(KedaPublisherTest, AnUnknownLocationOrAnUnreadableCacheIsAFailureAndNothingIsWritten) {
  KedaPublisherOptions options = Options("replica-a");
  options.configmaps.push_back({"westeurope", "other", "kube-system", "data"});
  KedaPublisher publisher(std::move(options), kube_, data_, clock_);
  PublishCounts counts = publisher.RunOnce();
  EXPECT_EQ(counts.written, 1);
  EXPECT_EQ(counts.failed, 1);
  EXPECT_TRUE(api_.Get("configmaps", "kube-system", "other").is_null());
  data_.fail = true;
  SetForecast({5, 6, 7});
  EXPECT_EQ(publisher.RunOnce().failed, 2);
  EXPECT_EQ(ConfigMap()["data"]["minForecast"], "340.000000");  // what was written stays
}

// Run() waits on the Clock (the controller loop), not in real time: a minute
// of passes, one every `interval` and at each Lease renewal, returns at once.
TEST_F(KedaPublisherTest, RunPassesEveryIntervalOnTheClock) {
  KedaPublisherOptions options = Options("replica-a");
  options.interval = absl::Seconds(10);
  KedaPublisher publisher(std::move(options), kube_, data_, clock_);
  const absl::Time start = clock_.Now();
  clock_.StopAt(start + absl::Minutes(1));
  absl::Notification stop;
  publisher.Run(stop);
  EXPECT_TRUE(publisher.leading());
  EXPECT_EQ(Calls("POST"), 1);  // written once, then unchanged
  int lease_renewals = 0;
  for (const testing::FakeApiCall& call : api_.calls()) {
    lease_renewals += call.method == "PUT" && absl::StrContains(call.target, "/leases/");
  }
  // The 15 s Lease is renewed every 5 s: 11 renewals after taking it in a minute.
  EXPECT_EQ(lease_renewals, 11);
  EXPECT_GE(clock_.waits(), 11);
}

// The value of the exposition line that starts with `series`; NaN when none does.
double SeriesValue(const std::string& page, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(page, '\n')) {
    double value = 0;
    if (absl::ConsumePrefix(&line, series + " ") && absl::SimpleAtod(line, &value)) return value;
  }
  return std::nan("");
}

// What the metrics say of two ConfigMaps over three passes: writes by result,
// records, the last pass that left each current; only the Lease holder is leader.
TEST_F(KedaPublisherTest, TheMetricsFollowEveryConfigMapAndTheLease) {
  prometheus::Registry registry;
  KedaMetrics metrics(registry);
  KedaPublisherOptions options = Options("replica-a");
  options.configmaps.push_back({"westeurope", "other", "kube-system", "data"});
  KedaPublisher publisher(std::move(options), kube_, data_, clock_, &metrics);
  prometheus::Registry other_registry;
  KedaMetrics other_metrics(other_registry);
  KedaPublisher other(Options("replica-b"), kube_, data_, clock_, &other_metrics);
  publisher.RunOnce();  // written, and westeurope failed
  clock_.Advance(absl::Seconds(10));
  publisher.RunOnce();  // unchanged: current, not written
  other.RunOnce();      // not the leader
  const std::string page = prometheus::TextSerializer().Serialize(registry.Collect());
  const std::string cm = R"({configmap="carbon-intensity",namespace="kube-system"})";
  EXPECT_THAT(page, HasSubstr("carbonroute_keda_leader 1"));
  EXPECT_THAT(
      page,
      HasSubstr(
          R"(carbonroute_keda_configmap_writes_total{configmap="carbon-intensity",namespace="kube-system",result="written"} 1)"));
  EXPECT_THAT(
      page,
      HasSubstr(
          R"(carbonroute_keda_configmap_writes_total{configmap="other",namespace="kube-system",result="failed"} 2)"));
  EXPECT_THAT(page, HasSubstr("carbonroute_keda_configmap_records" + cm + " 5"));
  EXPECT_EQ(SeriesValue(page, "carbonroute_keda_configmap_last_current_timestamp_seconds" + cm),
            absl::ToDoubleSeconds(clock_.Now() - absl::UnixEpoch()));
  EXPECT_THAT(page, Not(HasSubstr(R"(records{configmap="other")")));  // never current
  EXPECT_THAT(prometheus::TextSerializer().Serialize(other_registry.Collect()),
              HasSubstr("carbonroute_keda_leader 0"));
}

}  // namespace
}  // namespace carbonroute::keda
