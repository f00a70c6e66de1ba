#include "kube/kube_node.h"

#include "base/status_macros.h"

namespace carbonroute::kube {

absl::Status ReadNode(const JsonField& value, KubeNode& node) {
  CARBONROUTE_RETURN_IF_ERROR(value.RequireObject());
  const JsonField metadata = value["metadata"];
  CARBONROUTE_RETURN_IF_ERROR(metadata.ExpectObjectOrMissing());
  CARBONROUTE_ASSIGN_OR_RETURN(node.name, metadata["name"].RequiredString());
  const JsonField labels = metadata["labels"];
  CARBONROUTE_RETURN_IF_ERROR(labels.ExpectObjectOrMissing());
  CARBONROUTE_ASSIGN_OR_RETURN(node.region, labels[kRegionLabel].OptionalString());
  const JsonField annotations = metadata["annotations"];
  CARBONROUTE_RETURN_IF_ERROR(annotations.ExpectObjectOrMissing());
  CARBONROUTE_ASSIGN_OR_RETURN(const std::string annotated,
                               annotations[kRegionAnnotation].OptionalString());
  if (!annotated.empty()) node.region = annotated;  // set by hand for this Node: it wins
  CARBONROUTE_ASSIGN_OR_RETURN(const std::string liqo_type,
                               labels[kLiqoTypeLabel].OptionalString());
  node.virtual_node = liqo_type == kLiqoVirtualNode;
  CARBONROUTE_ASSIGN_OR_RETURN(node.zone, labels[kZoneLabel].OptionalString());
  CARBONROUTE_ASSIGN_OR_RETURN(node.location, labels[kLocationLabel].OptionalString());
  CARBONROUTE_ASSIGN_OR_RETURN(node.watttime_region, labels[kWattTimeRegionLabel].OptionalString());

  const JsonField spec = value["spec"];
  CARBONROUTE_RETURN_IF_ERROR(spec.ExpectObjectOrMissing());
  CARBONROUTE_ASSIGN_OR_RETURN(node.unschedulable, spec["unschedulable"].OptionalBool());

  const JsonField status = value["status"];
  CARBONROUTE_RETURN_IF_ERROR(status.ExpectObjectOrMissing());
  std::string internal, external;
  absl::Status addresses =
      status["addresses"].ForEachElement([&](const JsonField& entry) -> absl::Status {
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
  return status["conditions"].ForEachElement([&](const JsonField& entry) -> absl::Status {
    CARBONROUTE_RETURN_IF_ERROR(entry.RequireObject());
    CARBONROUTE_ASSIGN_OR_RETURN(const std::string type, entry["type"].OptionalString());
    CARBONROUTE_ASSIGN_OR_RETURN(const std::string value_text, entry["status"].OptionalString());
    if (type == "Ready") node.ready = value_text == "True";
    return absl::OkStatus();
  });
}

}  // namespace carbonroute::kube
