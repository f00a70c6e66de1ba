#include "simulator/transport_network.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace carbonroute::simulator {
namespace {

using ::testing::ElementsAre;

// Two origins, three destinations. By hand: origin 0 (30 units) may use A (cost 100, room 20)
// and B (cost 300, room 50); origin 1 (40 units) may use A and C (cost 200, room 50). Both want
// A; a unit of origin 0 kept off A costs 200 more (B), one of origin 1 only 100 more (C), so A's
// 20 go to origin 0: 20 A + 10 B, 0 A + 40 C, total 20·100 + 10·300 + 40·200 = 13,000. A unit
// more of A would save 200 (one of origin 0's units from B to A).
TEST(TransportNetwork, TheFlowOfLeastCostAndTheCapacityPrices) {
  TransportNetwork network({30, 40}, {20, 50, 50}, {{0, 0}, {0, 1}, {1, 0}, {1, 2}});
  absl::StatusOr<std::vector<int64_t>> flows = network.Solve({100, 300, 100, 200});
  ASSERT_TRUE(flows.ok()) << flows.status();
  EXPECT_THAT(*flows, ElementsAre(20, 10, 0, 40));
  EXPECT_THAT(network.CapacityPrices(), ElementsAre(200, 0, 0));
  // Costs change, the graph stays: now C is dearer than B for everyone it serves.
  flows = network.Solve({100, 300, 100, 500});
  ASSERT_TRUE(flows.ok()) << flows.status();
  EXPECT_THAT(*flows, ElementsAre(0, 30, 20, 20));
}

TEST(TransportNetwork, SupplyTheArcsCannotCarryIsAFailedPrecondition) {
  TransportNetwork network({30}, {20, 50}, {{0, 0}});
  absl::StatusOr<std::vector<int64_t>> flows = network.Solve({1});
  EXPECT_EQ(flows.status().code(), absl::StatusCode::kFailedPrecondition) << flows.status();
  EXPECT_EQ(network.Solve({1, 2}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace carbonroute::simulator
