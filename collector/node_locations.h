// File: collector/node_locations.h
//
// `locations: nodes` (the carbon role): which grid locations a provider polls
// for the Nodes rtt.discovery.kubernetes lists, and with which of the
// provider's codes.
//
// A Node's grid location is its carbonroute.io/location label, else its
// region's zone in the region → location map (collector/discovered_peers.h
// LocationOf). The series of every provider are labelled with that grid
// location, so scheduler-lite joins a Node (carbonroute_node_info{location})
// to its carbon without knowing any provider's codes. The code each provider
// is called with:
//   electricity_maps, replay   the grid location itself (an Electricity Maps zone);
//   watttime                   the Node's carbonroute.io/watttime-region label, else
//                              its region's coordinates (data/cloud-regions.csv)
//                              as "latitude,longitude", which the provider resolves
//                              once through /v3/region-from-loc.
// Where the Nodes of one grid location give different codes, the first
// Node's by name wins. A Node with no grid location, or (WattTime) whose grid
// location no Node gives a code for (neither a label nor a region in the
// coordinates table), is unmapped: its location is not polled; it is counted
// and named so that it can be logged.
//
// Thread safety: pure function.
#ifndef CARBONROUTE_COLLECTOR_NODE_LOCATIONS_H_
#define CARBONROUTE_COLLECTOR_NODE_LOCATIONS_H_

#include <map>
#include <string>
#include <vector>

#include "collector/discovered_peers.h"
#include "config/collector_config.h"
#include "kube/kube_node.h"

namespace carbonroute::collector {

using RegionCoordinates = std::map<std::string, std::string, std::less<>>;  // region → "lat,lon"

struct NodeLocations {
  std::map<std::string, std::string> codes;  // grid location → the provider's code for it
  // Node name → why it has no code ("no carbonroute.io/location label and region \"x\" is
  // not in the region map").
  std::map<std::string, std::string> unmapped;
};

NodeLocations LocationsOfNodes(const ProviderConfig& provider,
                               const std::vector<kube::KubeNode>& nodes,
                               const RegionLocations& regions,
                               const RegionCoordinates& coordinates);

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_NODE_LOCATIONS_H_
