// The Kubernetes API's answers as carbonroute reads them (kube/json_view.h):
// a Node and a NodeList page, a JobList and a PodList, a Status body; and a
// kubeconfig file.
#include "discovery/kube_api_json.h"
#include "hold/held_object.h"
#include "kube/json_view.h"
#include "kube/kubeconfig.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace carbonroute;  // NOLINT: fuzz target
  const absl::string_view json = fuzz::Text(data, size);
  (void)discovery::ParseNode(json);
  (void)discovery::ParseNodeList(json);
  (void)hold::ParseObjectList(json, hold::HeldKind::kJob);
  (void)hold::ParseObjectList(json, hold::HeldKind::kPod);
  (void)kube::DescribeStatus(json);
  (void)kube::ParseKubeconfig(std::string(json), "/fuzz/kubeconfig");
  return 0;
}
