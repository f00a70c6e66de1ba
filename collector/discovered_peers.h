// File: collector/discovered_peers.h
//
// From Kubernetes Nodes (discovery/node_discovery.h) to what the collector
// probes and exports:
//   - this node's identity: each of region, zone and location that the
//     configuration (or the command line) leaves empty is taken from the
//     collector's own Node, so one DaemonSet configuration serves every
//     region of a cluster;
//   - the peers: the Nodes peer_selection.h chooses for this node, probed at
//     their address with rtt.discovery.kubernetes.protocol/port;
//   - a Node's grid location: its carbonroute.io/location label, else its
//     region's zone in the region → location map (data/cloud-regions.csv).
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_COLLECTOR_DISCOVERED_PEERS_H_
#define CARBONROUTE_COLLECTOR_DISCOVERED_PEERS_H_

#include <map>
#include <string>
#include <vector>

#include "config/collector_config.h"
#include "kube/kube_node.h"

namespace carbonroute::collector {

using RegionLocations = std::map<std::string, std::string, std::less<>>;

// The grid location of `node`: its label, else its region's; "" if neither.
std::string LocationOf(const kube::KubeNode& node, const RegionLocations& regions);

// `configured` with its empty region, zone and location filled from `self`.
NodeConfig IdentityFromNode(const NodeConfig& configured, const kube::KubeNode& self,
                            const RegionLocations& regions);

// The peers `self` probes among `nodes` (the whole cluster, `self` included or not):
// never a Liqo virtual node (kube/kube_node.h: its address is the local virtual-kubelet pod).
std::vector<PeerConfig> DiscoveredPeers(const NodeConfig& self,
                                        const std::vector<kube::KubeNode>& nodes,
                                        const RttConfig& rtt, const RegionLocations& regions);

// `configured` followed by the `discovered` peers whose names it does not use:
// a peer listed in rtt.peers overrides the Node of the same name.
std::vector<PeerConfig> MergePeers(const std::vector<PeerConfig>& configured,
                                   const std::vector<PeerConfig>& discovered);

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_DISCOVERED_PEERS_H_
