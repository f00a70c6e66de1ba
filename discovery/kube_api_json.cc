#include "discovery/kube_api_json.h"

#include "base/status_macros.h"

namespace carbonroute::discovery {

absl::StatusOr<kube::KubeNode> ParseNode(absl::string_view json) {
  kube::JsonDocument document;
  CARBONROUTE_ASSIGN_OR_RETURN(const kube::JsonField root, document.Parse(json, "Node"));
  kube::KubeNode node;
  CARBONROUTE_RETURN_IF_ERROR(ReadNode(root, node));
  return node;
}

}  // namespace carbonroute::discovery
