// File: discovery/kube_node.h
//
// What carbonroute reads of a Kubernetes Node (core/v1), as the API server
// returns it (https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/):
//   metadata.name                                   → name (the `target` label)
//   status.addresses[type=InternalIP], else ExternalIP → address (probed)
//   metadata.labels["topology.kubernetes.io/region"] → region
//   metadata.labels["topology.kubernetes.io/zone"]   → zone
//     (well-known labels: https://kubernetes.io/docs/reference/labels-annotations-taints/)
//   metadata.labels["carbonroute.io/location"]       → location (grid zone)
//   metadata.labels["carbonroute.io/watttime-region"] → watttime_region (WattTime's code for it)
//   status.conditions[type=Ready].status == "True"   → ready
//   spec.unschedulable                               → unschedulable
#ifndef CARBONROUTE_DISCOVERY_KUBE_NODE_H_
#define CARBONROUTE_DISCOVERY_KUBE_NODE_H_

#include <string>

namespace carbonroute::discovery {

inline constexpr char kRegionLabel[] = "topology.kubernetes.io/region";
inline constexpr char kZoneLabel[] = "topology.kubernetes.io/zone";
inline constexpr char kLocationLabel[] = "carbonroute.io/location";
inline constexpr char kWattTimeRegionLabel[] = "carbonroute.io/watttime-region";

struct KubeNode {
  std::string name;
  std::string address;  // "" when the Node reports neither an InternalIP nor an ExternalIP
  std::string region, zone, location;  // "" when the label is absent
  std::string watttime_region;         // "" when the label is absent
  bool ready = false;
  bool unschedulable = false;

  bool operator==(const KubeNode&) const = default;
};

}  // namespace carbonroute::discovery

#endif  // CARBONROUTE_DISCOVERY_KUBE_NODE_H_
