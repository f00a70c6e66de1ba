// Integration test: the carbon role writes the ConfigMap Azure's
// carbon-aware-keda-operator reads. A real collector (replay provider, a
// forecast of US-MIDA-PJM) with publish.keda_configmaps for the Azure region
// eastus writes it through a fake Kubernetes API over HTTP; the test reads it
// back with the operator's decoding rules (test/keda/operator_decoding.h) and
// checks that its forecast records are /api/v1/forecast's points, and that
// every request the collector made is one the shipped RBAC allows.
// Stays beside test/cluster/keda_publisher_cluster_test.cc (the real server's immutable
// ConfigMap): this one decodes the records as the operator does, in the default tier.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "test/keda/operator_decoding.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_kube_api_server.h"
#include "test/testing/rbac_rules.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

TEST(KedaConfigMap, TheOperatorReadsTheCollectorsForecastFromTheConfigMap) {
  testing::ScopedTempDir dir;
  testing::FakeBatchApi api([] { return absl::Now(); });
  api.ServeResource("v1", "configmaps", true, false);
  testing::FakeKubeApiServer kube;
  kube.ServeBatchApi(&api);
  testing::CollectorProcess collector = testing::StartCollector(
      dir.path(),
      absl::StrCat("listen_address: 127.0.0.1:0\ndatabase: ", dir.path(),
                   "/cache.sqlite\nnode: {name: keda-node}\n"
                   "poll: {interval: 1s, forecast_horizon: 24h}\n"
                   "providers:\n  - {type: replay, locations: [US-MIDA-PJM]}\n"
                   "publish:\n  api_url: ",
                   kube.base_url(), "\n  keda_configmaps:\n    - {location: eastus}\n"));
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  Json configmap;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        configmap = api.Get("configmaps", "kube-system", "carbon-intensity");
        return !configmap.is_null();
      },
      absl::Seconds(30)))
      << collector.process->Log();
  std::cout << "ConfigMap as written: " << configmap.dump(2) << "\n";

  absl::StatusOr<std::vector<testing::OperatorRecord>> records =
      testing::DecodeAsTheOperatorDoes(configmap, "data");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(configmap["data"]["numOfRecords"], std::to_string(records->size()));
  std::string decoded;
  for (std::size_t i = 0; i < records->size() && i < 3; ++i) {
    absl::StrAppend(
        &decoded, "  {location: ", (*records)[i].location, ", timestamp: ",
        absl::FormatTime(absl::RFC3339_sec, (*records)[i].timestamp, absl::UTCTimeZone()),
        ", duration: ", (*records)[i].duration_minutes, ", value: ", (*records)[i].value, "}\n");
  }
  std::cout << "binaryData.data as the operator decodes it (" << records->size()
            << " records; the first 3):\n"
            << decoded;
  const Json forecast = Json::parse(
      testing::HttpGet(collector.port, "/api/v1/forecast?location=US-MIDA-PJM"), nullptr, false);
  ASSERT_TRUE(forecast.is_object()) << forecast;
  const Json& points = forecast["series"][0]["points"];
  ASSERT_GT(points.size(), 20u);  // a day ahead, hourly
  ASSERT_GE(records->size(), points.size());
  // The last records are the forecast's points, one for one.
  const std::size_t first = records->size() - points.size();
  for (std::size_t i = 0; i < points.size(); ++i) {
    const testing::OperatorRecord& record = (*records)[first + i];
    absl::Time from, to;
    std::string error;
    ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, points[i]["valid_from"].get<std::string>(),
                                &from, &error));
    ASSERT_TRUE(
        absl::ParseTime(absl::RFC3339_full, points[i]["valid_to"].get<std::string>(), &to, &error));
    EXPECT_EQ(record.timestamp, from) << i;
    EXPECT_EQ(record.duration_minutes, absl::ToInt64Minutes(to - from)) << i;
    EXPECT_EQ(record.value, points[i]["grams_per_kwh"].get<double>()) << i;
    EXPECT_EQ(record.location, "eastus");
  }
  EXPECT_NE(testing::CurrentSlot(*records, absl::Now()), nullptr);

  // The collector's /metrics says so too: the leader, one write, the records the operator reads.
  const std::string metrics = testing::HttpGet(collector.port, "/metrics");
  EXPECT_THAT(metrics, HasSubstr("carbonroute_keda_leader 1"));
  EXPECT_THAT(metrics, HasSubstr(absl::StrCat(
                           "carbonroute_keda_configmap_records{configmap=\"carbon-intensity\","
                           "namespace=\"kube-system\"} ",
                           records->size())));
  EXPECT_THAT(metrics, HasSubstr("carbonroute_keda_configmap_writes_total{configmap=\"carbon-"
                                 "intensity\",namespace=\"kube-system\",result=\"written\"}"));

  // What the collector asked of the API: the Lease, then the ConfigMap, in kube-system; all
  // allowed by the carbon role's RBAC with publishing's
  // (deploy/kubernetes/collector-carbon-role.yaml and examples/keda-publishing-rbac.yaml: the
  // chart's with carbon.kedaConfigMaps).
  std::set<std::string> allowed = testing::AllowedByRbac(
      std::string(CARBONROUTE_SOURCE_DIR) + "/deploy/kubernetes/collector-carbon-role.yaml");
  allowed.merge(testing::AllowedByRbac(std::string(CARBONROUTE_SOURCE_DIR) +
                                       "/deploy/kubernetes/examples/keda-publishing-rbac.yaml"));
  for (const testing::FakeApiCall& call : api.calls()) {
    EXPECT_TRUE(allowed.contains(testing::RbacNeededFor(call.method, call.target)))
        << call.method << " " << call.target;
    const bool lease =
        absl::StartsWith(call.target, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases");
    const bool configmap_call =
        absl::StartsWith(call.target, "/api/v1/namespaces/kube-system/configmaps");
    EXPECT_TRUE(lease || configmap_call) << call.method << " " << call.target;
  }
  EXPECT_EQ(collector.process->Terminate(), 0);
}

}  // namespace
}  // namespace carbonroute
