#include "discovery/kube_api_json.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/kube_client.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::discovery {
namespace {

using ::carbonroute::testing::IsOk;
using ::carbonroute::testing::StatusIs;
using ::testing::HasSubstr;

// A Node as `kubectl get node -o json` prints it, trimmed to the fields read
// and a few that are not
// (https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/).
constexpr char kNode[] = R"({
  "kind": "Node", "apiVersion": "v1",
  "metadata": {
    "name": "gke-eu-pool-1-a1b2", "resourceVersion": "4711",
    "labels": {"kubernetes.io/hostname": "gke-eu-pool-1-a1b2",
               "topology.kubernetes.io/region": "europe-west1",
               "topology.kubernetes.io/zone": "europe-west1-b",
               "carbonroute.io/location": "BE"}
  },
  "spec": {"podCIDR": "10.4.1.0/24", "unschedulable": true},
  "status": {
    "addresses": [{"type": "ExternalIP", "address": "34.76.1.2"},
                  {"type": "InternalIP", "address": "10.132.0.7"},
                  {"type": "Hostname", "address": "gke-eu-pool-1-a1b2"}],
    "conditions": [{"type": "MemoryPressure", "status": "False"},
                   {"type": "Ready", "status": "True", "reason": "KubeletReady"}]
  }
})";

TEST(ParseNodeTest, ReadsNameAddressTopologyAndState) {
  absl::StatusOr<kube::KubeNode> node = ParseNode(kNode);
  ASSERT_THAT(node, IsOk());
  EXPECT_EQ(node->name, "gke-eu-pool-1-a1b2");
  EXPECT_EQ(node->address, "10.132.0.7");  // InternalIP preferred over ExternalIP
  EXPECT_EQ(node->region, "europe-west1");
  EXPECT_EQ(node->zone, "europe-west1-b");
  EXPECT_EQ(node->location, "BE");
  EXPECT_TRUE(node->ready);
  EXPECT_TRUE(node->unschedulable);
}

// A Liqo virtual node as liqo's virtual-kubelet creates it (pkg/virtualKubelet/
// liqoNodeProvider/setup.go), with the region annotation GreenCourier's README has
// users set by hand; its InternalIP is the local virtual-kubelet pod's.
TEST(ParseNodeTest, ALiqoVirtualNodeIsRecognisedAndItsRegionAnnotationWins) {
  absl::StatusOr<kube::KubeNode> node = ParseNode(
      R"({"metadata": {"name": "liqo-edge-frankfurt",
                       "labels": {"liqo.io/type": "virtual-node", "type": "virtual-kubelet",
                                  "liqo.io/remote-cluster-id": "edge-frankfurt",
                                  "topology.kubernetes.io/region": "europe-west1"},
                       "annotations": {"node.kubernetes.io/region": "europe-west3"}},
          "spec": {"taints": [{"key": "virtual-node.liqo.io/not-allowed", "value": "true",
                               "effect": "NoExecute"}]},
          "status": {"addresses": [{"type": "InternalIP", "address": "10.244.0.17"}]}})");
  ASSERT_THAT(node, IsOk());
  EXPECT_TRUE(node->virtual_node);
  EXPECT_EQ(node->region, "europe-west3");  // set by hand for this Node: over the label
  EXPECT_EQ(node->address, "10.244.0.17");
  absl::StatusOr<kube::KubeNode> ordinary = ParseNode(kNode);
  ASSERT_THAT(ordinary, IsOk());
  EXPECT_FALSE(ordinary->virtual_node);
}

TEST(ParseNodeTest, FallsBackToExternalIpAndToleratesMissingSections) {
  absl::StatusOr<kube::KubeNode> node = ParseNode(
      R"({"metadata": {"name": "edge-1"},
          "status": {"addresses": [{"type": "ExternalIP", "address": "2001:db8::7"}],
                     "conditions": [{"type": "Ready", "status": "Unknown"}]}})");
  ASSERT_THAT(node, IsOk());
  EXPECT_EQ(node->address, "2001:db8::7");
  EXPECT_EQ(node->region, "");
  EXPECT_FALSE(node->ready);
  EXPECT_FALSE(node->unschedulable);

  node = ParseNode(R"({"metadata": {"name": "bare"}})");
  ASSERT_THAT(node, IsOk());
  EXPECT_EQ(node->address, "");
}

TEST(ParseNodeTest, NamesTheFieldThatIsWrong) {
  EXPECT_THAT(ParseNode(R"({"metadata": {}})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Node: metadata.name: expected a non-empty string"));
  EXPECT_THAT(
      ParseNode(R"({"metadata": {"name": "a", "labels": {"topology.kubernetes.io/zone": 3}}})"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Node: metadata.labels.topology.kubernetes.io/zone: expected a string"));
  EXPECT_THAT(ParseNode(R"({"metadata": {"name": "a"}, "status": {"addresses": [7]}})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Node: status.addresses[0]: expected an object"));
  EXPECT_THAT(
      ParseNode(R"({"metadata": {"name": "a"}, "spec": {"unschedulable": "yes"}})"),
      StatusIs(absl::StatusCode::kInvalidArgument, "Node: spec.unschedulable: expected a boolean"));
  EXPECT_THAT(ParseNode("{\"metadata\": "),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Node: not JSON")));
}

// A NodeList page as production reads it: kube::ReadListPage (what
// kube::ListAll runs on every page) with each item through ReadNode.
absl::StatusOr<kube::ListPage> ReadNodeListPage(absl::string_view json,
                                                std::vector<kube::KubeNode>& nodes) {
  kube::JsonDocument document;
  return kube::ReadListPage(document, json, "NodeList", [&nodes](const kube::JsonField& item) {
    return kube::ReadNode(item, nodes.emplace_back());
  });
}

TEST(NodeListPageTest, ReadsItemsResourceVersionAndContinue) {
  const std::string list = std::string(R"({"kind": "NodeList", "apiVersion": "v1",
      "metadata": {"resourceVersion": "9001", "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ"},
      "items": [)") + kNode +
                           R"(, {"metadata": {"name": "n2"}}]})";
  std::vector<kube::KubeNode> nodes;
  absl::StatusOr<kube::ListPage> page = ReadNodeListPage(list, nodes);
  ASSERT_THAT(page, IsOk());
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[1].name, "n2");
  EXPECT_EQ(page->resource_version, "9001");
  EXPECT_EQ(page->continue_token, "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ");

  nodes.clear();
  page = ReadNodeListPage(R"({"metadata": {"resourceVersion": "1"}, "items": []})", nodes);
  ASSERT_THAT(page, IsOk());
  EXPECT_TRUE(nodes.empty());
  EXPECT_EQ(page->continue_token, "");
  EXPECT_THAT(ReadNodeListPage(R"({"items": [{"metadata": {"name": 5}}]})", nodes),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "NodeList: items[0].metadata.name: expected a non-empty string"));
  EXPECT_THAT(ReadNodeListPage(R"({"items": {}})", nodes),
              StatusIs(absl::StatusCode::kInvalidArgument, "NodeList: items: expected an array"));
}

}  // namespace
}  // namespace carbonroute::discovery
