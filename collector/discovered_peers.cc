#include "collector/discovered_peers.h"

#include <set>

#include "discovery/peer_selection.h"

namespace carbonroute::collector {

std::string LocationOf(const kube::KubeNode& node, const RegionLocations& regions) {
  if (!node.location.empty()) return node.location;
  auto it = regions.find(node.region);
  return it == regions.end() ? "" : it->second;
}

NodeConfig IdentityFromNode(const NodeConfig& configured, const kube::KubeNode& self,
                            const RegionLocations& regions) {
  NodeConfig node = configured;
  if (node.region.empty()) node.region = self.region;
  if (node.zone.empty()) node.zone = self.zone;
  if (node.location.empty()) {
    kube::KubeNode with_region = self;
    with_region.region = node.region;  // a configured region maps too
    node.location = LocationOf(with_region, regions);
  }
  return node;
}

std::vector<PeerConfig> DiscoveredPeers(const NodeConfig& self,
                                        const std::vector<kube::KubeNode>& nodes,
                                        const RttConfig& rtt, const RegionLocations& regions) {
  // A Liqo virtual node's address is the local virtual-kubelet pod: probing it would
  // measure this cluster, not the remote one. Its RTT comes from the declared matrix.
  std::vector<kube::KubeNode> probeable;
  for (const kube::KubeNode& node : nodes) {
    if (!node.virtual_node) probeable.push_back(node);
  }
  std::vector<PeerConfig> peers;
  for (const std::size_t i :
       discovery::SelectPeers(self.name, self.zone, probeable, rtt.peer_selection)) {
    const kube::KubeNode& node = probeable[i];
    PeerConfig& peer = peers.emplace_back();
    peer.name = node.name;
    peer.region = node.region;
    peer.zone = node.zone;
    peer.location = LocationOf(node, regions);
    peer.address = node.address;
    peer.protocol = rtt.kubernetes.protocol;
    peer.port = rtt.kubernetes.port;
  }
  return peers;
}

std::vector<PeerConfig> MergePeers(const std::vector<PeerConfig>& configured,
                                   const std::vector<PeerConfig>& discovered) {
  std::vector<PeerConfig> merged = configured;
  std::set<std::string> names;
  for (const PeerConfig& peer : configured) names.insert(peer.name);
  for (const PeerConfig& peer : discovered) {
    if (!names.contains(peer.name)) merged.push_back(peer);
  }
  return merged;
}

}  // namespace carbonroute::collector
