// The carbon role's KEDA publisher on the real API server, as its shipped
// ServiceAccount (carbonroute/carbonroute-carbon) with the Role in kube-system
// the Helm chart grants when publishing is on (carbon.kedaConfigMaps: the
// ConfigMap and the Lease by name, `create` unnamed): the ConfigMap Azure's
// carbon-aware-keda-operator reads, where Azure's exporter left it `immutable: true`. The real
// server refuses any change to an immutable ConfigMap's data (the fake of
// test/integration/keda_configmap_test.cc only imitates that); the publisher
// deletes and creates it once, then patches the new one in place.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "test/cluster/cluster_test_support.h"
#include "test/testing/collector_process.h"
#include "test/testing/real_control_plane.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using Json = nlohmann::json;
using testing::RealControlPlane;

struct ConfigMapWrites {
  std::vector<std::string> verbs;  // in order: "patch 422", "delete 200", "create 201", ...
};

ConfigMapWrites WritesOf(const RealControlPlane& plane, const std::string& user,
                         const std::string& name) {
  ConfigMapWrites writes;
  for (const testing::AuditEvent& event : plane.Audit()) {
    if (event.user != user || event.resource != "configmaps" || event.name != name ||
        event.namespace_name != "kube-system" || event.verb == "get") {
      continue;
    }
    writes.verbs.push_back(absl::StrCat(event.verb, " ", event.code));
  }
  return writes;
}

TEST(KedaPublisherOnTheRealApiServer, ReplacesTheExportersImmutableConfigMapOnceThenPatches) {
  testing::ScopedTempDir dir;
  RealControlPlane& plane = testing::SharedControlPlane();
  // As Azure's kubernetes-carbon-intensity-exporter leaves it.
  ASSERT_TRUE(plane
                  .Apply(R"(apiVersion: v1
kind: ConfigMap
metadata: {name: carbon-intensity, namespace: kube-system}
immutable: true
data: {lastHeartbeatTime: "2026-12-01T00:00:00Z", numOfRecords: "0", message: "exporter"}
)")
                  .ok());
  // The real server refuses a change to it, whoever asks.
  EXPECT_FALSE(plane
                   .Kubectl("patch configmap carbon-intensity -n kube-system --type merge "
                            "-p '{\"data\":{\"message\":\"changed\"}}'")
                   .ok());
  // The base grants no ConfigMap rights (publishing is off): the chart's Role and RoleBinding
  // for this ConfigMap, rendered as `helm install --set carbon.kedaConfigMaps[0]...` would.
  absl::StatusOr<std::string> rendered =
      testing::RenderChart(plane,
                           "--set carbon.kedaConfigMaps[0].location=eastus "
                           "--show-only templates/collector-carbon-role.yaml");
  ASSERT_TRUE(rendered.ok()) << rendered.status();
  std::string rbac;
  for (absl::string_view document : absl::StrSplit(*rendered, "\n---\n")) {
    if (absl::StrContains(document, "\nkind: Role\n") ||
        absl::StrContains(document, "\nkind: RoleBinding\n")) {
      absl::StrAppend(&rbac, "---\n", document, "\n");
    }
  }
  ASSERT_THAT(rbac, ::testing::HasSubstr("resourceNames: [\"carbon-intensity\"]"));
  ASSERT_TRUE(plane.Apply(rbac).ok()) << rbac;
  absl::StatusOr<std::string> kubeconfig =
      plane.ServiceAccountKubeconfig("carbonroute", "carbonroute-carbon");
  ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.status();
  testing::CollectorProcess collector =
      testing::StartCollector(dir.path(), absl::StrFormat(R"yaml(listen_address: 127.0.0.1:0
database: %s/cache.sqlite
node: {name: keda-node}
poll: {interval: 1s, forecast_horizon: 24h}
providers: [{type: replay, locations: [US-MIDA-PJM]}]
publish:
  kubeconfig: %s
  keda_configmaps: [{location: eastus}]
)yaml",
                                                          dir.path(), *kubeconfig));
  ASSERT_GT(collector.port, 0);
  const std::string user =
      RealControlPlane::ServiceAccountUser("carbonroute", "carbonroute-carbon");
  Json configmap;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        absl::StatusOr<std::string> text =
            plane.Kubectl("get configmap carbon-intensity -n kube-system -o json");
        configmap = Json::parse(text.value_or(""), nullptr, /*allow_exceptions=*/false);
        return configmap.is_object() && configmap.contains("binaryData");
      },
      absl::Seconds(60)))
      << collector.process->Log();
  EXPECT_FALSE(configmap.value("immutable", false)) << configmap.dump(2);
  EXPECT_NE(configmap["data"].value("numOfRecords", "0"), "0");
  // Replaced once: the refused patch (422), then delete and create; from then on, patches.
  ASSERT_TRUE(
      testing::WaitFor([&] { return WritesOf(plane, user, "carbon-intensity").verbs.size() >= 3; },
                       absl::Seconds(30)));
  const std::vector<std::string> verbs = WritesOf(plane, user, "carbon-intensity").verbs;
  ASSERT_GE(verbs.size(), 3u);
  EXPECT_EQ(verbs[0], "patch 422");
  EXPECT_EQ(verbs[1], "delete 200");
  EXPECT_EQ(verbs[2], "create 201");
  for (size_t i = 3; i < verbs.size(); ++i) EXPECT_EQ(verbs[i], "patch 200") << i;
  EXPECT_THAT(collector.process->Log(), ::testing::HasSubstr("immutable"));
  plane.Kubectl("delete configmap carbon-intensity -n kube-system").IgnoreError();
}

}  // namespace
}  // namespace carbonroute
