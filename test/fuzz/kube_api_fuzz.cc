// The Kubernetes API's Node, NodeList page and watch event JSON.
#include "discovery/kube_api_json.h"
#include "test/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace carbonroute::discovery;  // NOLINT: fuzz target
  const absl::string_view json = carbonroute::fuzz::Text(data, size);
  (void)ParseNode(json);
  (void)ParseNodeList(json);
  (void)ParseWatchEvent(json);
  return 0;
}
