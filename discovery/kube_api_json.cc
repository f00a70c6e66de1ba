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

absl::StatusOr<NodeListPage> ParseNodeList(absl::string_view json) {
  kube::JsonDocument document;
  CARBONROUTE_ASSIGN_OR_RETURN(const kube::JsonField root, document.Parse(json, "NodeList"));
  CARBONROUTE_RETURN_IF_ERROR(root.RequireObject());
  NodeListPage page;
  const kube::JsonField metadata = root["metadata"];
  CARBONROUTE_RETURN_IF_ERROR(metadata.ExpectObjectOrMissing());
  CARBONROUTE_ASSIGN_OR_RETURN(page.resource_version, metadata["resourceVersion"].OptionalString());
  CARBONROUTE_ASSIGN_OR_RETURN(page.continue_token, metadata["continue"].OptionalString());
  absl::Status items = root["items"].ForEachElement(
      [&](const kube::JsonField& item) { return ReadNode(item, page.nodes.emplace_back()); });
  if (!items.ok()) return items;
  return page;
}

}  // namespace carbonroute::discovery
