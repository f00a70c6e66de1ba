#include "collector/node_locations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/data_files.h"
#include "contract/region_locations.h"
#include "test/testing/build_paths.h"

namespace carbonroute::collector {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

kube::KubeNode Node(std::string name, std::string region, std::string location = "",
                    std::string watttime_region = "") {
  kube::KubeNode node;
  node.name = std::move(name);
  node.region = std::move(region);
  node.location = std::move(location);
  node.watttime_region = std::move(watttime_region);
  return node;
}

const RegionLocations kRegions = {{"europe-west3", "DE"}, {"us-west2", "US-CAL-CISO"}};
const RegionCoordinates kCoordinates = {{"us-west2", "34.05,-118.24"}};

ProviderConfig Provider(ProviderType type) {
  ProviderConfig provider;
  provider.type = type;
  provider.locations_from_nodes = true;
  return provider;
}

TEST(LocationsOfNodes, ElectricityMapsPollsEachGridLocationOnceByItsZone) {
  const std::vector<kube::KubeNode> nodes = {
      Node("a", "europe-west3"), Node("b", "europe-west3"), Node("c", "us-west2"),
      Node("d", "europe-north1", "FI"),  // a label outranks the region map
      Node("e", "mars-1")};              // neither
  NodeLocations found =
      LocationsOfNodes(Provider(ProviderType::kElectricityMaps), nodes, kRegions, kCoordinates);
  EXPECT_THAT(found.codes,
              ElementsAre(Pair("DE", "DE"), Pair("FI", "FI"), Pair("US-CAL-CISO", "US-CAL-CISO")));
  ASSERT_EQ(found.unmapped.size(), 1u);
  EXPECT_THAT(found.unmapped.at("e"), HasSubstr("region \"mars-1\" is not in the region map"));
}

TEST(LocationsOfNodes, WattTimeTakesTheLabelElseTheRegionsCoordinates) {
  const std::vector<kube::KubeNode> nodes = {
      Node("z-labelled", "us-west2", "", "CAISO_SOUTH"),  // later by name: the first wins
      Node("a-plain", "us-west2"),                        // coordinates
      Node("b", "europe-west3", "", "DE"),                // a label
      Node("c", "europe-west3"),                          // same location: already coded
      Node("d", "europe-north1", "FI")};                  // no label, no coordinates
  NodeLocations found =
      LocationsOfNodes(Provider(ProviderType::kWattTime), nodes, kRegions, kCoordinates);
  EXPECT_THAT(found.codes, ElementsAre(Pair("DE", "DE"), Pair("US-CAL-CISO", "34.05,-118.24")));
  ASSERT_EQ(found.unmapped.size(), 1u) << found.unmapped.begin()->first;
  EXPECT_THAT(found.unmapped.at("d"), HasSubstr("carbonroute.io/watttime-region"));
}

// The shipped cloud region table: AKS, EKS, GKE and OKE Nodes each find their zone.
TEST(LocationsOfNodes, NodesOfTheFourCloudsFindTheirZoneInTheShippedTable) {
  const std::string table = *ReadFileToString(
      std::string(CARBONROUTE_SOURCE_DIR) + "/data/cloud-regions.csv", "cloud regions");
  const RegionLocations regions = *ParseRegionLocationsCsv(table, "cloud-regions.csv");
  const RegionCoordinates coordinates = *ParseRegionCoordinatesCsv(table, "cloud-regions.csv");
  const std::vector<kube::KubeNode> nodes = {
      Node("aks", "eastus"), Node("eks", "us-east-1"), Node("gke", "europe-west1"),
      Node("oke", "us-ashburn-1"), Node("china", "cn-north-1")};
  NodeLocations found =
      LocationsOfNodes(Provider(ProviderType::kElectricityMaps), nodes, regions, coordinates);
  EXPECT_THAT(found.codes, ElementsAre(Pair("BE", "BE"), Pair("US-MIDA-PJM", "US-MIDA-PJM")));
  EXPECT_THAT(found.unmapped.at("china"), HasSubstr("\"cn-north-1\" has no known grid zone"));
  // WattTime: the region's coordinates (the first Node by name of a location gives them).
  found = LocationsOfNodes(Provider(ProviderType::kWattTime), nodes, regions, coordinates);
  EXPECT_EQ(found.codes.at("US-MIDA-PJM"), "37.37,-79.82");  // aks: Azure's eastus
}

}  // namespace
}  // namespace carbonroute::collector
