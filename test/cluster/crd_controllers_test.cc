// The CRD controllers on the real API server, with the real CRDs: carbonroute's
// own (deploy/kubernetes/routing, deploy/karmada/karmada-apiserver, applied by
// kustomize as a user applies them) and the upstream ones each controller acts
// on, copied from their Go modules by scripts/cluster build (Karmada's
// PropagationPolicy and ClusterPropagationPolicy, Istio's DestinationRule, the
// Gateway API's HTTPRoute, Knative Serving's Service). Karmada's Cluster is
// served by Karmada's aggregated API server, not a CRD: a stand-in CRD of the
// same group, version and kind (test/cluster/karmada-cluster-crd.yaml).
//
// Each controller runs with a token of its shipped ServiceAccount
// (carbonroute/carbonroute-route; karmada-system/carbonroute-karmada, the real
// kube-apiserver playing the Karmada API server); the carbon role is the
// static collector of cluster_test_support.h (Belgium 150, Germany 380, France
// 56 gCO2eq/kWh). The Service endpoints the routing controller counts are made
// by the real EndpointSlice controller from Pods kwok runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "test/cluster/cluster_test_support.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/real_control_plane.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using Json = nlohmann::json;
using testing::Field;
using ::testing::HasSubstr;
using testing::RealControlPlane;
using testing::SchedulerLite;

std::string Source(const std::string& path) {
  return absl::StrCat(CARBONROUTE_SOURCE_DIR, "/", path);
}

// The CRDs, once per binary: the upstream ones, the stand-in Cluster, and carbonroute's
// two kustomizations (the routing controller's, the Karmada API server's).
RealControlPlane& PlaneWithCrds() {
  static RealControlPlane* plane = [] {
    RealControlPlane& p = testing::SharedControlPlane();
    p.Kubectl("create namespace karmada-system").IgnoreError();
    p.Kubectl("create namespace shop").IgnoreError();
    for (const char* tool : {"karmada-crds", "istio-crds", "gateway-api-crds", "knative-crds"}) {
      const std::string folder = p.ToolFolder(tool);
      EXPECT_FALSE(folder.empty()) << tool << " is not cached: scripts/cluster build";
      const absl::StatusOr<std::string> applied = p.Kubectl("apply --server-side -f " + folder);
      EXPECT_TRUE(applied.ok()) << applied.status();
    }
    for (const std::string& args : {"-f " + Source("test/cluster/karmada-cluster-crd.yaml"),
                                    "-k " + Source("deploy/kubernetes/routing"),
                                    "-k " + Source("deploy/karmada/karmada-apiserver")}) {
      const absl::StatusOr<std::string> applied = p.Kubectl("apply --server-side " + args);
      EXPECT_TRUE(applied.ok()) << applied.status();
    }
    const absl::StatusOr<std::string> established =
        p.Kubectl("wait --for condition=Established crd --all --timeout=60s");
    EXPECT_TRUE(established.ok()) << established.status();
    return &p;
  }();
  return *plane;
}

Json ObjectJson(const RealControlPlane& plane, const std::string& object,
                const std::string& namespace_name) {
  const absl::StatusOr<std::string> text =
      plane.Kubectl(absl::StrCat("get ", object, " -n ", namespace_name, " -o json"));
  if (!text.ok()) return Json();
  return Json::parse(*text, nullptr, /*allow_exceptions=*/false);
}

// The status body of the last status write `user` made to `resource`/`name`, from the
// audit log (the cluster tier's audit policy keeps these bodies); null when none.
Json LastStatusWrite(const RealControlPlane& plane, const std::string& user,
                     const std::string& resource, const std::string& namespace_name,
                     const std::string& name) {
  Json last;
  for (const testing::AuditEvent& event : plane.Audit()) {
    if (event.user != user || event.resource != resource || event.subresource != "status" ||
        event.namespace_name != namespace_name || event.name != name || event.code != 200 ||
        event.request_object.empty()) {
      continue;
    }
    last = Json::parse(event.request_object, nullptr, /*allow_exceptions=*/false);
  }
  return last.is_object() ? last.value("status", Json()) : Json();
}

// f. Every shipped CRD is structural and established; every shipped example is created
// with kubectl's default (strict) field validation, which refuses an unknown field.
TEST(ShippedCrds, AreStructuralAndEveryExampleIsAcceptedWithStrictFieldValidation) {
  RealControlPlane& plane = PlaneWithCrds();
  for (const char* crd :
       {"carbonroutingpolicies.carbonroute.io", "carbonplacementpolicies.carbonroute.io",
        "carbonawarekarmadapolicies.carbonaware.rossf7.github.io"}) {
    SCOPED_TRACE(crd);
    const std::string object = absl::StrCat("crd ", crd);
    EXPECT_EQ(
        Field(plane, object, "default", "{.status.conditions[?(@.type==\"Established\")].status}"),
        "True");
    EXPECT_EQ(Field(plane, object, "default",
                    "{.status.conditions[?(@.type==\"NonStructuralSchema\")].status}"),
              "");
  }
  for (const char* example : {
           "deploy/kubernetes/routing/examples/three-region-destination-rule.yaml",
           "deploy/kubernetes/routing/examples/per-region-httproute.yaml",
           "deploy/karmada/examples/carbon-placement-policy.yaml",
           "deploy/karmada/examples/nginx-carbon-aware-karmada-policy.yaml",
           "deploy/kubernetes/examples/deployment.yaml",
           "deploy/kubernetes/examples/deferred-job.yaml",
           "deploy/kubernetes/examples/deferred-cronjob.yaml",
           "deploy/kubernetes/examples/knative-service.yaml",
       }) {
    const absl::StatusOr<std::string> created = plane.Kubectl(
        absl::StrCat("create --dry-run=server --validate=strict -f ", Source(example)));
    EXPECT_TRUE(created.ok()) << example << ": " << created.status();
  }
  // Strict validation is on: a misspelt field is refused, naming it.
  const absl::Status typo = plane.Apply(R"(apiVersion: carbonroute.io/v1alpha1
kind: CarbonRoutingPolicy
metadata: {name: typo, namespace: shop}
spec:
  targetRefs: [{group: networking.istio.io, kind: DestinationRule, name: checkout}]
  maxRttMS: 30
)");
  EXPECT_THAT(typo.message(), HasSubstr(".spec.maxRttMS: field not declared in schema"));
}

// Pods of `app` on each of the three Nodes (kwok runs them; the EndpointSlice controller
// makes their endpoints), `label` added to each.
std::string PodsOnEachNode(const std::string& namespace_name, const std::string& app,
                           const std::string& extra_label = "") {
  std::string yaml;
  for (const char* node : {"n-be", "n-de", "n-fr"}) {
    absl::StrAppendFormat(&yaml, R"(---
apiVersion: v1
kind: Pod
metadata:
  name: %s-%s
  namespace: %s
  labels: {app: %s%s}
spec:
  nodeName: %s
  containers: [{name: app, image: registry.invalid/app, ports: [{containerPort: 8080}]}]
)",
                          app, node, namespace_name, app, extra_label, node);
  }
  return yaml;
}

class RoutingControllerOnRealCrds : public ::testing::Test {
 protected:
  void SetUp() override {
    carbon_ = testing::StartCarbonRole(plane_, dir_.path());
    ASSERT_GT(carbon_.port, 0);
  }
  void TearDown() override {
    plane_.Kubectl("delete namespace --wait=false " + namespace_).IgnoreError();
  }
  void StartController() {
    absl::StatusOr<std::string> kubeconfig =
        plane_.ServiceAccountKubeconfig("carbonroute", "carbonroute-route");
    ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.status();
    controller_ = std::make_unique<testing::Subprocess>(
        SchedulerLite({"route", "--controller", "--kubeconfig=" + *kubeconfig,
                       absl::StrCat("--metrics=http://127.0.0.1:", carbon_.port, "/metrics"),
                       "--resync=1h", "--watch-timeout=5s", "--web.listen-address=127.0.0.1:0"}),
        dir_.File("route.log"));
  }
  // Waits until the EndpointSlice controller lists `count` ready endpoints of `service` (kwok
  // marks the Pods Ready, then the slices follow): a pass before that plans with the endpoints
  // there are, rightly, and a test would read those weights.
  void WaitForReadyEndpoints(const std::string& service, int count) {
    std::string ready;
    EXPECT_TRUE(testing::WaitFor(
        [&] {
          ready =
              plane_
                  .Kubectl(absl::StrCat("get endpointslices -n ", namespace_,
                                        " -l kubernetes.io/service-name=", service,
                                        " -o jsonpath='{.items[*].endpoints[*].conditions.ready}'"))
                  .value_or("");
          const std::vector<std::string> flags = absl::StrSplit(ready, ' ', absl::SkipEmpty());
          return std::count(flags.begin(), flags.end(), "true") == count;
        },
        absl::Seconds(60)))
        << service << ": ready " << ready;
  }
  // Whether the policy's last status write reads back unpruned and equal.
  void ExpectStatusReadBack(const std::string& policy) {
    const Json written = LastStatusWrite(
        plane_, RealControlPlane::ServiceAccountUser("carbonroute", "carbonroute-route"),
        "carbonroutingpolicies", namespace_, policy);
    ASSERT_TRUE(written.is_object()) << "no status write of " << policy << " in the audit log";
    EXPECT_EQ(ObjectJson(plane_, "carbonroutingpolicy " + policy, namespace_)["status"], written);
  }

  testing::ScopedTempDir dir_;
  RealControlPlane& plane_ = PlaneWithCrds();
  std::string namespace_ = plane_.NewNamespace();
  testing::CollectorProcess carbon_;
  std::unique_ptr<testing::Subprocess> controller_;
};

// g. A DestinationRule of Istio's own CRD, its Service's endpoints from the real
// EndpointSlice controller: carbonroute writes its localityLbSetting, keeps every field
// another writer changed in between, writes a status the CRD keeps whole, and, on a real
// deletion, the policy stays (deletionTimestamp, finalizer) until the rule is put back.
TEST_F(RoutingControllerOnRealCrds, DestinationRuleWeightedKeptAndPutBackThroughARealDeletion) {
  std::string yaml = PodsOnEachNode(namespace_, "checkout");
  absl::StrAppendFormat(&yaml, R"(---
apiVersion: v1
kind: Service
metadata: {name: checkout, namespace: %1$s}
spec: {selector: {app: checkout}, ports: [{port: 8080}]}
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: checkout, namespace: %1$s}
spec:
  host: checkout.%1$s.svc.cluster.local
  trafficPolicy:
    loadBalancer: {simple: LEAST_REQUEST}
    outlierDetection: {consecutive5xxErrors: 5, interval: 10s, baseEjectionTime: 30s}
---
apiVersion: carbonroute.io/v1alpha1
kind: CarbonRoutingPolicy
metadata: {name: checkout, namespace: %1$s}
spec:
  targetRefs: [{group: networking.istio.io, kind: DestinationRule, name: checkout}]
  maxRttMs: 30
  carbonToleranceGramsPerKwh: 10
  headroomPercent: 20
)",
                        namespace_);
  ASSERT_TRUE(plane_.Apply(yaml).ok());
  WaitForReadyEndpoints("checkout", 3);
  StartController();
  const std::string distribute = "{.spec.trafficPolicy.loadBalancer.localityLbSetting.distribute}";
  const std::string germany =
      "{.spec.trafficPolicy.loadBalancer.localityLbSetting.distribute[?(@.from==\"europe-west3/"
      "*\")].to}";
  ASSERT_TRUE(testing::WaitFor(
      [&] { return !Field(plane_, "destinationrule checkout", namespace_, germany).empty(); },
      absl::Seconds(60)))
      << controller_->Log();
  // One row per origin region; Germany's (380 gCO2eq/kWh) sends what its neighbours can
  // take with 20 % headroom to France (56) and Belgium (150), within 30 ms: docs/routing.md's
  // three-region figures, one ready endpoint per region.
  const Json rows = Json::parse(Field(plane_, "destinationrule checkout", namespace_, distribute),
                                nullptr, false);
  ASSERT_TRUE(rows.is_array()) << rows;
  EXPECT_EQ(rows.size(), 3u) << rows;
  EXPECT_EQ(Json::parse(Field(plane_, "destinationrule checkout", namespace_, germany)),
            Json::parse(R"({"europe-west1/*": 20, "europe-west3/*": 60, "europe-west9/*": 20})"));
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return Field(plane_, "carbonroutingpolicy checkout", namespace_,
                     "{.status.conditions[?(@.type==\"Ready\")].status}") == "True";
      },
      absl::Seconds(30)))
      << controller_->Log();
  ExpectStatusReadBack("checkout");

  // A second writer changes the rule's other fields; carbonroute then rewrites its own
  // (a tighter limit leaves France, 10 ms from Germany, out): both survive.
  ASSERT_TRUE(
      plane_
          .Kubectl(absl::StrCat("patch destinationrule checkout -n ", namespace_,
                                " --type merge -p '{\"spec\":{\"trafficPolicy\":{\"loadBalancer\":{"
                                "\"simple\":\"ROUND_ROBIN\"},\"outlierDetection\":{"
                                "\"consecutive5xxErrors\":7}}}}'"))
          .ok());
  ASSERT_TRUE(plane_
                  .Kubectl(absl::StrCat("patch carbonroutingpolicy checkout -n ", namespace_,
                                        " --type merge -p '{\"spec\":{\"maxRttMs\":9}}'"))
                  .ok());
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        const Json now = Json::parse(Field(plane_, "destinationrule checkout", namespace_, germany),
                                     nullptr, false);
        return now.is_object() && !now.contains("europe-west9/*");
      },
      absl::Seconds(30)))
      << Field(plane_, "destinationrule checkout", namespace_, germany) << controller_->Log();
  EXPECT_EQ(Field(plane_, "destinationrule checkout", namespace_,
                  "{.spec.trafficPolicy.loadBalancer.simple}"),
            "ROUND_ROBIN");
  EXPECT_EQ(Field(plane_, "destinationrule checkout", namespace_,
                  "{.spec.trafficPolicy.outlierDetection.consecutive5xxErrors}"),
            "7");

  // A real deletion with carbonroute stopped: the finalizer holds the policy.
  ASSERT_THAT(Field(plane_, "carbonroutingpolicy checkout", namespace_, "{.metadata.finalizers}"),
              HasSubstr("carbonroute.io/"));
  controller_->Signal(SIGSTOP);
  ASSERT_TRUE(
      plane_
          .Kubectl(absl::StrCat("delete carbonroutingpolicy checkout --wait=false -n ", namespace_))
          .ok());
  EXPECT_NE(
      Field(plane_, "carbonroutingpolicy checkout", namespace_, "{.metadata.deletionTimestamp}"),
      "");
  EXPECT_NE(Field(plane_, "destinationrule checkout", namespace_, distribute), "");
  controller_->Signal(SIGCONT);
  ASSERT_TRUE(testing::WaitFor(
      [&] { return !plane_.Kubectl("get carbonroutingpolicy checkout -n " + namespace_).ok(); },
      absl::Seconds(30)))
      << controller_->Log();
  // Put back as it was before carbonroute's first write (no localityLbSetting), with the
  // second writer's fields kept.
  const Json rule = ObjectJson(plane_, "destinationrule checkout", namespace_);
  EXPECT_FALSE(rule["spec"]["trafficPolicy"]["loadBalancer"].contains("localityLbSetting")) << rule;
  EXPECT_EQ(rule["spec"]["trafficPolicy"]["loadBalancer"].value("simple", ""), "ROUND_ROBIN");
  EXPECT_EQ(rule["spec"]["trafficPolicy"]["outlierDetection"].value("consecutive5xxErrors", 0), 7);
}

// g. An HTTPRoute of the Gateway API's own CRD (v1, standard channel), one backend Service
// per region: carbonroute writes the backends' weights from the Gateway's row.
TEST_F(RoutingControllerOnRealCrds, HttpRouteBackendWeightsFromTheGatewaysRow) {
  std::string yaml;
  for (const auto& [region, name, node] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"europe-west1", "belgium", "n-be"},
           {"europe-west3", "germany", "n-de"},
           {"europe-west9", "france", "n-fr"}}) {
    absl::StrAppendFormat(&yaml, R"(---
apiVersion: v1
kind: Pod
metadata: {name: storefront-%2$s, namespace: %1$s, labels: {app: storefront, region: %3$s}}
spec:
  nodeName: %4$s
  containers: [{name: app, image: registry.invalid/app, ports: [{containerPort: 8080}]}]
---
apiVersion: v1
kind: Service
metadata:
  name: storefront-%2$s
  namespace: %1$s
  labels: {topology.kubernetes.io/region: %3$s}
spec: {selector: {app: storefront, region: %3$s}, ports: [{port: 8080}]}
)",
                          namespace_, name, region, node);
  }
  absl::StrAppendFormat(&yaml, R"(---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: storefront, namespace: %1$s}
spec:
  parentRefs: [{name: eu-gateway, namespace: gateways}]
  rules:
    - matches: [{path: {type: PathPrefix, value: /}}]
      backendRefs:
        - {name: storefront-belgium, port: 8080, weight: 1}
        - {name: storefront-germany, port: 8080, weight: 1}
        - {name: storefront-france, port: 8080, weight: 1}
---
apiVersion: carbonroute.io/v1alpha1
kind: CarbonRoutingPolicy
metadata: {name: storefront, namespace: %1$s}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: storefront}]
  maxRttMs: 20
  carbonToleranceGramsPerKwh: 10
  headroomPercent: 20
  origins: [{locality: europe-west3/*, demand: 1}]
)",
                        namespace_);
  ASSERT_TRUE(plane_.Apply(yaml).ok());
  for (const char* backend : {"storefront-belgium", "storefront-germany", "storefront-france"}) {
    WaitForReadyEndpoints(backend, 1);
  }
  StartController();
  const std::string weights = "{.spec.rules[0].backendRefs[*].weight}";
  ASSERT_TRUE(testing::WaitFor(
      [&] { return Field(plane_, "httproute storefront", namespace_, weights) != "1 1 1"; },
      absl::Seconds(60)))
      << controller_->Log();
  // The Gateway's German demand goes to France first (the cleanest within 20 ms).
  const std::string written = Field(plane_, "httproute storefront", namespace_, weights);
  std::vector<int> w;
  for (absl::string_view part : absl::StrSplit(written, ' ')) {
    int value = 0;
    EXPECT_TRUE(absl::SimpleAtoi(part, &value)) << written;
    w.push_back(value);
  }
  ASSERT_EQ(w.size(), 3u) << written;
  EXPECT_GT(w[2], w[1]) << "France over Germany: " << written;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return Field(plane_, "carbonroutingpolicy storefront", namespace_,
                     "{.status.conditions[?(@.type==\"Ready\")].status}") == "True";
      },
      absl::Seconds(30)))
      << controller_->Log();
  ExpectStatusReadBack("storefront");
}

// g. The Karmada controller on Karmada's own PropagationPolicy and ClusterPropagationPolicy
// CRDs and the stand-in Cluster: it patches spec.placement's clusterNames only (the user's
// labelSelector kept) and writes a status the CRD keeps whole.
TEST(KarmadaControllerOnRealCrds, PlacesPropagationPoliciesOfBothKindsAndKeepsTheStatusWhole) {
  testing::ScopedTempDir dir;
  RealControlPlane& plane = PlaneWithCrds();
  const std::string ns = plane.NewNamespace();
  testing::CollectorProcess carbon = testing::StartCarbonRole(plane, dir.path());
  ASSERT_GT(carbon.port, 0);
  std::string yaml;
  for (const auto& [name, region] :
       std::vector<std::pair<std::string, std::string>>{{"member-belgium", "europe-west1"},
                                                        {"member-germany", "europe-west3"},
                                                        {"member-france", "europe-west9"}}) {
    absl::StrAppendFormat(&yaml, R"(---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: %s-%s}
spec: {region: %s, syncMode: Push}
)",
                          ns, name, region);
  }
  absl::StrAppendFormat(&yaml, R"(---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web-propagation, namespace: %1$s}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement:
    clusterAffinity: {labelSelector: {matchLabels: {tier: production}}}
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted}
---
apiVersion: carbonroute.io/v1alpha1
kind: CarbonPlacementPolicy
metadata: {name: web, namespace: %1$s}
spec:
  targetRef: {kind: PropagationPolicy, name: web-propagation}
  desiredClusters: 2
  origin: %1$s-member-belgium
  maxRttMs: 25
  carbonToleranceGramsPerKwh: 30
  replicaWeights: true
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: %1$s-crds}
spec:
  resourceSelectors: [{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition}]
  placement: {clusterAffinity: {clusterNames: [%1$s-member-germany]}}
---
apiVersion: carbonroute.io/v1alpha1
kind: CarbonPlacementPolicy
metadata: {name: crds, namespace: %1$s}
spec:
  targetRef: {kind: ClusterPropagationPolicy, name: %1$s-crds}
  desiredClusters: 1
)",
                        ns);
  ASSERT_TRUE(plane.Apply(yaml).ok());
  absl::StatusOr<std::string> kubeconfig =
      plane.ServiceAccountKubeconfig("karmada-system", "carbonroute-karmada");
  ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.status();
  testing::Subprocess controller(
      SchedulerLite({"karmada", "--controller", "--kubeconfig=" + *kubeconfig,
                     absl::StrCat("--metrics=http://127.0.0.1:", carbon.port, "/metrics"),
                     "--resync=1h", "--watch-timeout=5s", "--web.listen-address=127.0.0.1:0"}),
      dir.File("karmada.log"));
  const std::string names = "{.spec.placement.clusterAffinity.clusterNames}";
  // France (56) and Belgium (150) within 25 ms of Belgium; the labelSelector kept.
  ASSERT_TRUE(testing::WaitFor(
      [&] { return !Field(plane, "propagationpolicy web-propagation", ns, names).empty(); },
      absl::Seconds(60)))
      << controller.Log();
  const std::string chosen = Field(plane, "propagationpolicy web-propagation", ns, names);
  EXPECT_THAT(chosen, HasSubstr(ns + "-member-france"));
  EXPECT_THAT(chosen, HasSubstr(ns + "-member-belgium"));
  EXPECT_THAT(chosen, ::testing::Not(HasSubstr("germany")));
  EXPECT_EQ(Field(plane, "propagationpolicy web-propagation", ns,
                  "{.spec.placement.clusterAffinity.labelSelector.matchLabels.tier}"),
            "production");
  // The ClusterPropagationPolicy (cluster-scoped): one cluster, France.
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return absl::StrContains(
            Field(plane, "clusterpropagationpolicy " + ns + "-crds", ns, names), "france");
      },
      absl::Seconds(30)))
      << Field(plane, "clusterpropagationpolicy " + ns + "-crds", ns, names) << controller.Log();
  // Each policy's status reads back unpruned and equal to what was written.
  const std::string user =
      RealControlPlane::ServiceAccountUser("karmada-system", "carbonroute-karmada");
  for (const char* policy : {"web", "crds"}) {
    SCOPED_TRACE(policy);
    Json written;
    ASSERT_TRUE(testing::WaitFor(
        [&] {
          written = LastStatusWrite(plane, user, "carbonplacementpolicies", ns, policy);
          return written.is_object();
        },
        absl::Seconds(30)));
    EXPECT_EQ(ObjectJson(plane, absl::StrCat("carbonplacementpolicy ", policy), ns)["status"],
              written);
  }
  plane.Kubectl("delete namespace --wait=false " + ns).IgnoreError();
  plane.Kubectl(absl::StrCat("delete clusterpropagationpolicy ", ns, "-crds")).IgnoreError();
}

}  // namespace
}  // namespace carbonroute
