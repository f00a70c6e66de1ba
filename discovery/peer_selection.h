// File: discovery/peer_selection.h
//
// Which discovered Nodes one collector probes (`rtt.peer_selection`).
//
//   all      every other Node with an address: a full mesh, n − 1 targets
//            per collector and n(n − 1) series per RTT metric in the cluster.
//   sampled  up to `same_zone` Nodes of the collector's own zone and
//            `per_remote_zone` Nodes of every other zone, so a collector's
//            targets are bounded by same_zone + per_remote_zone × (zones − 1),
//            whatever the cluster's size.
//   auto     all below PeerSelectionConfig::kAutoSampledFrom Nodes, else sampled.
//   none     no Node: the carbon role discovers Nodes for their grid locations only.
//
// Sampled choices use rendezvous (highest-random-weight) hashing: within
// each zone, a source picks the Nodes with the highest weight
// w(source, target), a hash of both names (Thaler & Ravishankar, "Using
// name-based mappings to increase hit rates", IEEE/ACM ToN 6(1), 1998).
// Because the weight depends on the source, every source picks different
// representatives (every Node is probed by several sources), and because it
// depends on nothing else, adding or removing one Node changes only the
// choices that involved it: about 1/n of them.
//
// Nodes are grouped by their zone label; Nodes without one form one zone "".
// Nodes without an address and the source itself are never chosen.
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_DISCOVERY_PEER_SELECTION_H_
#define CARBONROUTE_DISCOVERY_PEER_SELECTION_H_

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "config/collector_config.h"
#include "kube/kube_node.h"

namespace carbonroute::discovery {

// The mode `config` gives a cluster of `node_count` Nodes (never kAuto).
PeerSelectionMode EffectiveMode(const PeerSelectionConfig& config, std::size_t node_count);

// Indexes into `nodes` of the Nodes `source_name` (in zone `source_zone`)
// probes, in ascending order.
std::vector<std::size_t> SelectPeers(absl::string_view source_name, absl::string_view source_zone,
                                     const std::vector<kube::KubeNode>& nodes,
                                     const PeerSelectionConfig& config);

// The rendezvous weight of (source, target): stable across processes,
// versions and platforms (FNV-1a 64 of each name, mixed by SplitMix64).
uint64_t RendezvousWeight(absl::string_view source, absl::string_view target);

}  // namespace carbonroute::discovery

#endif  // CARBONROUTE_DISCOVERY_PEER_SELECTION_H_
