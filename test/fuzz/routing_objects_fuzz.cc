// What the routing reads besides the API's single objects (kube_api_fuzz):
// a policy file as `route --policy` reads it (YAML or JSON, several documents:
// a CarbonRoutingPolicy with its DestinationRules, HTTPRoutes and Services),
// an EndpointSlice as the controller counts its ready endpoints, and an
// HTTPRoute's annotation of the weights carbonroute found (which anyone with
// the right to edit the route may have changed).
#include <map>
#include <string>

#include "kube/json_view.h"
#include "kube/kube_node.h"
#include "routing/http_route_patch.h"
#include "routing/policy_file.h"
#include "routing/service_endpoints.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace carbonroute;  // NOLINT: fuzz target
  const absl::string_view text = fuzz::Text(data, size);
  (void)routing::ReadPolicyFile(std::string(text), "/fuzz/policy.yaml");
  (void)routing::RestoreWeightsPatch(std::string(text));
  kube::JsonDocument document;
  if (absl::StatusOr<kube::JsonField> slice = document.Parse(text, "EndpointSlice"); slice.ok()) {
    std::map<std::string, kube::KubeNode> nodes;
    kube::KubeNode node;
    node.name = "node-a";
    node.region = "europe-west1";
    node.zone = "europe-west1-b";
    nodes[node.name] = node;
    for (routing::LocalityLevel level :
         {routing::LocalityLevel::kRegion, routing::LocalityLevel::kZone}) {
      routing::EndpointCount count;
      (void)routing::CountEndpoints(*slice, nodes, level, count);
    }
  }
  return 0;
}
