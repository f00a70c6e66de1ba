#include "collector/discovered_peers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace carbonroute::collector {
namespace {

TEST(DiscoveredPeers, ALiqoVirtualNodeIsNeverProbed) {
  NodeConfig self;
  self.name = "node-a";
  RttConfig rtt;
  rtt.peer_selection.mode = PeerSelectionMode::kAll;
  const std::vector<kube::KubeNode> nodes = {
      {.name = "node-a", .address = "10.0.0.1", .region = "europe-west1", .ready = true},
      {.name = "node-b", .address = "10.0.0.2", .region = "europe-west1", .ready = true},
      {.name = "liqo-frankfurt",
       .address = "10.244.0.17",
       .region = "europe-west3",
       .ready = true,
       .virtual_node = true},
  };
  const std::vector<PeerConfig> peers =
      DiscoveredPeers(self, nodes, rtt, {{"europe-west1", "BE"}, {"europe-west3", "DE"}});
  std::vector<std::string> names;
  for (const PeerConfig& peer : peers) names.push_back(peer.name);
  EXPECT_THAT(names, ::testing::ElementsAre("node-b"));
}

}  // namespace
}  // namespace carbonroute::collector
