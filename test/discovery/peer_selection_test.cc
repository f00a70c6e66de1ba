#include "discovery/peer_selection.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace carbonroute::discovery {
namespace {

using ::testing::ElementsAre;

std::vector<kube::KubeNode> Cluster(int nodes, int zones) {
  std::vector<kube::KubeNode> cluster;
  for (int i = 0; i < nodes; ++i) {
    kube::KubeNode& node = cluster.emplace_back();
    node.name = absl::StrCat("node-", i);
    node.zone = absl::StrCat("zone-", i % zones);
    node.address = absl::StrCat("10.", i / 250, ".", i % 250, ".1");
  }
  return cluster;
}

PeerSelectionConfig Sampled(int same_zone, int per_remote_zone) {
  PeerSelectionConfig config;
  config.mode = PeerSelectionMode::kSampled;
  config.same_zone = same_zone;
  config.per_remote_zone = per_remote_zone;
  return config;
}

// Every (source, target) choice of the cluster.
std::set<std::pair<std::string, std::string>> Choices(const std::vector<kube::KubeNode>& cluster,
                                                      const PeerSelectionConfig& config) {
  std::set<std::pair<std::string, std::string>> choices;
  for (const kube::KubeNode& source : cluster) {
    for (std::size_t i : SelectPeers(source.name, source.zone, cluster, config)) {
      choices.emplace(source.name, cluster[i].name);
    }
  }
  return choices;
}

TEST(PeerSelectionTest, AutoIsAFullMeshBelowOneHundredNodes) {
  PeerSelectionConfig config;  // auto
  EXPECT_EQ(EffectiveMode(config, 99), PeerSelectionMode::kAll);
  EXPECT_EQ(EffectiveMode(config, 100), PeerSelectionMode::kSampled);
  std::vector<kube::KubeNode> cluster = Cluster(4, 2);
  cluster[2].address.clear();  // nothing to probe
  EXPECT_THAT(SelectPeers("node-0", "zone-0", cluster, config), ElementsAre(1, 3));
}

TEST(PeerSelectionTest, SampledTakesSameZoneAndRemoteRepresentatives) {
  const std::vector<kube::KubeNode> cluster = Cluster(40, 4);  // 10 per zone
  const std::vector<std::size_t> chosen = SelectPeers("node-0", "zone-0", cluster, Sampled(3, 2));
  std::map<std::string, int> per_zone;
  for (std::size_t i : chosen) {
    EXPECT_NE(cluster[i].name, "node-0");
    ++per_zone[cluster[i].zone];
  }
  EXPECT_EQ(per_zone, (std::map<std::string, int>{
                          {"zone-0", 3}, {"zone-1", 2}, {"zone-2", 2}, {"zone-3", 2}}));
  // A zone smaller than the quota gives all it has.
  EXPECT_EQ(SelectPeers("node-0", "zone-0", Cluster(8, 4), Sampled(5, 5)).size(), 7u);
}

TEST(PeerSelectionTest, WeightsAreStableAcrossBuilds) {
  // Fixed values: a change of hash would reshuffle every collector's targets on upgrade.
  EXPECT_EQ(RendezvousWeight("node-0", "node-1"), RendezvousWeight("node-0", "node-1"));
  EXPECT_NE(RendezvousWeight("node-0", "node-1"), RendezvousWeight("node-1", "node-0"));
  EXPECT_EQ(RendezvousWeight("a", "b"), 0x24cddbd78c61033dULL);
}

// The figures: 5,000 Nodes in 50 zones.
class LargeClusterTest : public ::testing::Test {
 protected:
  static constexpr int kNodes = 5000, kZones = 50;
  const PeerSelectionConfig config_ = Sampled(5, 2);
  const std::vector<kube::KubeNode> cluster_ = Cluster(kNodes, kZones);
};

TEST_F(LargeClusterTest, BoundsTargetsAndSpreadsProbes) {
  std::map<std::string, int> probed_by;
  std::size_t most_targets = 0;
  for (const kube::KubeNode& source : cluster_) {
    const std::vector<std::size_t> chosen =
        SelectPeers(source.name, source.zone, cluster_, config_);
    most_targets = std::max(most_targets, chosen.size());
    for (std::size_t i : chosen) ++probed_by[cluster_[i].name];
  }
  EXPECT_LE(most_targets,
            static_cast<std::size_t>(config_.same_zone + (kZones - 1) * config_.per_remote_zone));
  ASSERT_EQ(probed_by.size(), static_cast<std::size_t>(kNodes));  // nobody left out
  int fewest = kNodes;
  for (const auto& [name, sources] : probed_by) fewest = std::min(fewest, sources);
  EXPECT_GE(fewest, config_.per_remote_zone);
}

TEST_F(LargeClusterTest, RemovingOneNodeChangesAtMostTwoPercentOfChoices) {
  const auto before = Choices(cluster_, config_);
  for (const int removed : {0, 1234, 4999}) {
    std::vector<kube::KubeNode> smaller = cluster_;
    smaller.erase(smaller.begin() + removed);
    const auto after = Choices(smaller, config_);
    std::vector<std::pair<std::string, std::string>> changed;
    std::set_symmetric_difference(before.begin(), before.end(), after.begin(), after.end(),
                                  std::back_inserter(changed));
    EXPECT_GT(changed.size(), 0u);
    EXPECT_LE(static_cast<double>(changed.size()), 0.02 * static_cast<double>(before.size()))
        << "removing node-" << removed << " changed " << changed.size() << " of " << before.size();
  }
}

}  // namespace
}  // namespace carbonroute::discovery
