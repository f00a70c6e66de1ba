#include "collector/node_locations.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace carbonroute::collector {

NodeLocations LocationsOfNodes(const ProviderConfig& provider,
                               const std::vector<kube::KubeNode>& nodes,
                               const RegionLocations& regions,
                               const RegionCoordinates& coordinates) {
  std::vector<const kube::KubeNode*> by_name;
  for (const kube::KubeNode& node : nodes) by_name.push_back(&node);
  std::sort(by_name.begin(), by_name.end(),
            [](const auto* a, const auto* b) { return a->name < b->name; });
  NodeLocations result;
  struct Uncoded {
    std::string node, location, why;
  };
  std::vector<Uncoded> uncoded;  // Nodes that gave no code, by name
  for (const kube::KubeNode* node : by_name) {
    const std::string location = LocationOf(*node, regions);
    if (location.empty()) {
      result.unmapped[node->name] = absl::StrCat(
          "no ", kube::kLocationLabel, " label and region \"", node->region,
          regions.contains(node->region) ? "\" has no known grid zone in the region map"
                                         : "\" is not in the region map");
      continue;
    }
    std::string code = location;
    if (provider.type == ProviderType::kWattTime) {
      code = node->watttime_region;
      if (code.empty()) {
        auto it = coordinates.find(node->region);
        if (it == coordinates.end()) {
          uncoded.push_back(
              {node->name, location,
               absl::StrCat("grid location ", location, " has no WattTime region: no ",
                            kube::kWattTimeRegionLabel, " label and region \"", node->region,
                            "\" is not in the coordinates table")});
          continue;
        }
        code = it->second;
      }
    }
    result.codes.emplace(location, code);  // the first Node's (by name) stays
  }
  // A Node without a code of its own is covered when another Node of its location gave one.
  for (Uncoded& node : uncoded) {
    if (!result.codes.contains(node.location)) {
      result.unmapped.emplace(std::move(node.node), std::move(node.why));
    }
  }
  return result;
}

}  // namespace carbonroute::collector
