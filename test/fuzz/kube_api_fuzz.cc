// The Kubernetes API's answers as carbonroute reads them (kube/json_view.h):
// a Node; a list page as kube::ListAll reads every page in production
// (kube::ReadListPage) with each item read as a Node, a Job and a Pod are; a
// Status body; a kubeconfig file; a CarbonRoutingPolicy, a DestinationRule and
// an HTTPRoute as the routing reads them.
#include "discovery/kube_api_json.h"
#include "hold/held_object.h"
#include "kube/json_view.h"
#include "kube/kube_client.h"
#include "kube/kube_node.h"
#include "kube/kubeconfig.h"
#include "routing/destination_rule_patch.h"
#include "routing/http_route_patch.h"
#include "routing/routing_policy.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace carbonroute;  // NOLINT: fuzz target
  const absl::string_view json = fuzz::Text(data, size);
  (void)discovery::ParseNode(json);
  kube::JsonDocument document;
  (void)kube::ReadListPage(document, json, "NodeList", [](const kube::JsonField& item) {
    kube::KubeNode node;
    return kube::ReadNode(item, node);
  });
  for (hold::HeldKind kind : {hold::HeldKind::kJob, hold::HeldKind::kPod}) {
    (void)kube::ReadListPage(document, json, "List", [kind](const kube::JsonField& item) {
      return hold::ReadHeldObject(item, kind).status();
    });
  }
  if (absl::StatusOr<kube::JsonField> root = document.Parse(json, "object"); root.ok()) {
    (void)routing::ReadRoutingPolicy(*root);
    (void)routing::CheckDestinationRule(*root);
    (void)routing::ReadBackends(*root, "default");
  }
  (void)kube::DescribeStatus(json);
  (void)kube::ParseKubeconfig(std::string(json), "/fuzz/kubeconfig");
  return 0;
}
