// File: kube/kube_node.h
//
// What carbonroute reads of a Kubernetes Node (core/v1), as the API server
// returns it (https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/):
//   metadata.name                                   → name (the `target` label)
//   status.addresses[type=InternalIP], else ExternalIP → address (probed)
//   metadata.annotations["node.kubernetes.io/region"], else
//   metadata.labels["topology.kubernetes.io/region"] → region (the annotation is
//     how GreenCourier's users give a Liqo virtual node its region by hand:
//     https://github.com/thandayuthapani/GreenCourier README)
//   metadata.labels["topology.kubernetes.io/zone"]   → zone
//     (well-known labels: https://kubernetes.io/docs/reference/labels-annotations-taints/)
//   metadata.labels["carbonroute.io/location"]       → location (grid zone)
//   metadata.labels["carbonroute.io/watttime-region"] → watttime_region (WattTime's code for it)
//   status.conditions[type=Ready].status == "True"   → ready
//   spec.unschedulable                               → unschedulable
//   metadata.labels["liqo.io/type"] == "virtual-node" → virtual_node: a Liqo
//     virtual node, one per peered remote cluster; its InternalIP is the local
//     virtual-kubelet pod's, so it is never probed as a peer
//     (https://github.com/liqotech/liqo pkg/virtualKubelet/liqoNodeProvider/setup.go)
// The rooms that read Nodes from the API read them with ReadNode (node
// discovery in the collector, `serve`'s Nodes); the extender reads the Nodes
// kube-scheduler sends with simdjson directly (its critical path), by the
// same label and annotation names below, which every reader takes from here.
//
// Errors: ReadNode returns kInvalidArgument naming the field and what was
// wrong, e.g. "NodeList: items[3].metadata.name: expected a non-empty string".
// Thread safety: a plain value; ReadNode is a pure function.
#ifndef CARBONROUTE_KUBE_KUBE_NODE_H_
#define CARBONROUTE_KUBE_KUBE_NODE_H_

#include <string>

#include "absl/status/status.h"
#include "kube/json_view.h"

namespace carbonroute::kube {

inline constexpr char kRegionLabel[] = "topology.kubernetes.io/region";
inline constexpr char kZoneLabel[] = "topology.kubernetes.io/zone";
inline constexpr char kLocationLabel[] = "carbonroute.io/location";
inline constexpr char kWattTimeRegionLabel[] = "carbonroute.io/watttime-region";
inline constexpr char kRegionAnnotation[] = "node.kubernetes.io/region";
inline constexpr char kLiqoTypeLabel[] = "liqo.io/type";
inline constexpr char kLiqoVirtualNode[] = "virtual-node";

struct KubeNode {
  std::string name;
  std::string address;  // "" when the Node reports neither an InternalIP nor an ExternalIP
  std::string region, zone, location;  // "" when the label is absent
  std::string watttime_region;         // "" when the label is absent
  bool ready = false;
  bool unschedulable = false;
  bool virtual_node = false;  // a Liqo virtual node

  bool operator==(const KubeNode&) const = default;
};

// Reads the Node `value` (a list's item, a watch event's object) into `node`.
absl::Status ReadNode(const JsonField& value, KubeNode& node);

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_KUBE_NODE_H_
