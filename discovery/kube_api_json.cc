#include "discovery/kube_api_json.h"

#include "base/status_macros.h"

namespace carbonroute::discovery {

absl::Status ReadNode(const kube::JsonField& value, KubeNode& node) {
  CARBONROUTE_RETURN_IF_ERROR(value.RequireObject());
  const kube::JsonField metadata = value["metadata"];
  CARBONROUTE_RETURN_IF_ERROR(metadata.ExpectObjectOrMissing());
  CARBONROUTE_ASSIGN_OR_RETURN(node.name, metadata["name"].RequiredString());
  const kube::JsonField labels = metadata["labels"];
  CARBONROUTE_RETURN_IF_ERROR(labels.ExpectObjectOrMissing());
  CARBONROUTE_ASSIGN_OR_RETURN(node.region, labels[kRegionLabel].OptionalString());
  CARBONROUTE_ASSIGN_OR_RETURN(node.zone, labels[kZoneLabel].OptionalString());
  CARBONROUTE_ASSIGN_OR_RETURN(node.location, labels[kLocationLabel].OptionalString());
  CARBONROUTE_ASSIGN_OR_RETURN(node.watttime_region, labels[kWattTimeRegionLabel].OptionalString());

  const kube::JsonField spec = value["spec"];
  CARBONROUTE_RETURN_IF_ERROR(spec.ExpectObjectOrMissing());
  CARBONROUTE_ASSIGN_OR_RETURN(node.unschedulable, spec["unschedulable"].OptionalBool());

  const kube::JsonField status = value["status"];
  CARBONROUTE_RETURN_IF_ERROR(status.ExpectObjectOrMissing());
  std::string internal, external;
  absl::Status addresses =
      status["addresses"].ForEachElement([&](const kube::JsonField& entry) -> absl::Status {
        CARBONROUTE_RETURN_IF_ERROR(entry.RequireObject());
        CARBONROUTE_ASSIGN_OR_RETURN(const std::string type, entry["type"].OptionalString());
        CARBONROUTE_ASSIGN_OR_RETURN(const std::string text, entry["address"].OptionalString());
        if (type == "InternalIP" && internal.empty()) internal = text;
        if (type == "ExternalIP" && external.empty()) external = text;
        return absl::OkStatus();
      });
  if (!addresses.ok()) return addresses;
  node.address = internal.empty() ? external : internal;
  node.ready = false;
  return status["conditions"].ForEachElement([&](const kube::JsonField& entry) -> absl::Status {
    CARBONROUTE_RETURN_IF_ERROR(entry.RequireObject());
    CARBONROUTE_ASSIGN_OR_RETURN(const std::string type, entry["type"].OptionalString());
    CARBONROUTE_ASSIGN_OR_RETURN(const std::string value_text, entry["status"].OptionalString());
    if (type == "Ready") node.ready = value_text == "True";
    return absl::OkStatus();
  });
}

absl::StatusOr<KubeNode> ParseNode(absl::string_view json) {
  kube::JsonDocument document;
  CARBONROUTE_ASSIGN_OR_RETURN(const kube::JsonField root, document.Parse(json, "Node"));
  KubeNode node;
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
