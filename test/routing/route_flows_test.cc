#include "routing/route_flows.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "absl/strings/str_cat.h"
#include "routing/istio_distribute.h"
#include "routing/locality_weights.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::routing {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

// RTTs between localities, both ways; none to itself.
RttLookup Rtts(std::map<std::pair<std::string, std::string>, int> ms) {
  return [ms = std::move(ms)](const std::string& from,
                              const std::string& to) -> std::optional<absl::Duration> {
    for (const auto& key : {std::make_pair(from, to), std::make_pair(to, from)}) {
      if (auto it = ms.find(key); it != ms.end()) return absl::Milliseconds(it->second);
    }
    return std::nullopt;
  };
}

const RouteFlow& FlowTo(const RouteRow& row, const std::string& destination) {
  for (const RouteFlow& flow : row.flows) {
    if (flow.destination == destination) return flow;
  }
  ADD_FAILURE() << "no flow to " << destination;
  return row.flows.front();
}

// Three localities serving one Service, two endpoints each, 50 % headroom: capacity 3 of 1 each
// (the demand, proportional to the endpoints). A 100, B 300, C 500 gCO2eq/kWh; A–B 10 ms, A–C
// 30 ms, B–C 60 ms, over the 50 ms limit.
//
// By hand, in 1/10,000 of the traffic: each origin 3,333 units, A's room 5,000. Every origin
// wants A. C's next choice is its own 500 (400 more), A's and B's is B at 300 (200 more), so C
// gets A first (3,333), and A's last 1,667 go to origin A (for origin B, A is 10 ms farther than
// staying: the RTT breaks the tie). Rows: A → A 1,667, B 1,666; B → B 3,333; C → A 3,333.
TEST(RouteFlows, CarbonWithinTheLimitAndTheCapacitiesByHand) {
  const std::vector<RouteOrigin> origins = {{"a/*", 1}, {"b/*", 1}, {"c/*", 1}};
  const std::vector<RouteDestination> destinations = {
      {"a/*", 1.5, 100}, {"b/*", 1.5, 300}, {"c/*", 1.5, 500}};
  absl::StatusOr<std::vector<RouteRow>> rows =
      RouteFlows(origins, destinations, {.max_rtt = absl::Milliseconds(50)},
                 Rtts({{{"a/*", "b/*"}, 10}, {{"a/*", "c/*"}, 30}, {{"b/*", "c/*"}, 60}}));
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 3u);
  const RouteRow& a = (*rows)[0];
  EXPECT_EQ(a.origin, "a/*");
  EXPECT_DOUBLE_EQ(FlowTo(a, "a/*").share, 1667.0 / 3333);
  EXPECT_DOUBLE_EQ(FlowTo(a, "b/*").share, 1666.0 / 3333);
  EXPECT_EQ(FlowTo(a, "c/*").share, 0);
  EXPECT_EQ(FlowTo(a, "c/*").reason, "dirtier");
  EXPECT_EQ(FlowTo(a, "a/*").reason, "the cleanest within the limits");
  const RouteRow& b = (*rows)[1];
  EXPECT_DOUBLE_EQ(FlowTo(b, "b/*").share, 1);
  EXPECT_EQ(FlowTo(b, "a/*").reason, "full: its capacity went to other traffic");
  EXPECT_EQ(FlowTo(b, "c/*").reason, "over maxRttMs (60 ms > 50 ms)");
  const RouteRow& c = (*rows)[2];
  EXPECT_DOUBLE_EQ(FlowTo(c, "a/*").share, 1);
  EXPECT_EQ(FlowTo(c, "a/*").rtt, absl::Milliseconds(30));
  EXPECT_EQ(c.flows.front().destination, "a/*");  // by share first

  // Into Istio's rows: each passes the project's checker of Istio's rules.
  LocalityLbSetting setting;
  for (const RouteRow& row : *rows) {
    std::vector<DestinationShare> shares;
    for (const RouteFlow& flow : row.flows) {
      shares.push_back({flow.destination, flow.share, flow.rtt.value_or(absl::ZeroDuration())});
    }
    absl::StatusOr<std::vector<LocalityWeight>> weights = PercentWeights(shares);
    ASSERT_TRUE(weights.ok()) << weights.status();
    DistributeRow distribute{.from = row.origin};
    for (const LocalityWeight& weight : *weights) {
      distribute.to.emplace_back(weight.locality, weight.percent);
    }
    setting.distribute.push_back(distribute);
  }
  EXPECT_TRUE(CheckLocalityLbSetting(setting).ok()) << CheckLocalityLbSetting(setting);
  EXPECT_EQ(setting.distribute[0].to,
            (std::vector<std::pair<std::string, int64_t>>{{"a/*", 50}, {"b/*", 50}}));
  EXPECT_EQ(setting.distribute[2].to, (std::vector<std::pair<std::string, int64_t>>{{"a/*", 100}}));
}

// Missing data never moves traffic toward the unknown, and a place without a reading keeps its
// own traffic.
TEST(RouteFlows, NoTrafficTowardALocalityWithoutAReading) {
  const RttLookup rtt = Rtts({{{"a/*", "b/*"}, 10}});
  absl::StatusOr<std::vector<RouteRow>> rows =
      RouteFlows({{"a/*", 1}, {"b/*", 1}}, {{"a/*", 5, 300}, {"b/*", 5, std::nullopt}}, {}, rtt);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_DOUBLE_EQ(FlowTo((*rows)[0], "a/*").share, 1);
  EXPECT_EQ(FlowTo((*rows)[0], "b/*").reason, "no current reading");
  EXPECT_DOUBLE_EQ(FlowTo((*rows)[1], "b/*").share, 1);
  EXPECT_EQ(FlowTo((*rows)[1], "b/*").reason, "kept local: no current reading here");
  EXPECT_EQ(FlowTo((*rows)[1], "a/*").reason,
            "the origin has no current reading: its traffic stays local");
  // An RTT nobody measured is a limit not met.
  rows = RouteFlows({{"a/*", 1}, {"c/*", 1}}, {{"a/*", 5, 300}, {"c/*", 5, 100}}, {}, rtt);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_DOUBLE_EQ(FlowTo((*rows)[0], "a/*").share, 1);
  EXPECT_EQ(FlowTo((*rows)[0], "c/*").reason, "no RTT measured from a/*");
}

// The scoring's tolerance rule: within τ of the cleanest, the nearer wins.
TEST(RouteFlows, WithinTheToleranceTheNearerWins) {
  const RttLookup rtt = Rtts({{{"a/*", "b/*"}, 10}});
  const std::vector<RouteDestination> destinations = {{"a/*", 5, 100}, {"b/*", 5, 105}};
  absl::StatusOr<std::vector<RouteRow>> strict =
      RouteFlows({{"b/*", 1}}, destinations, {.carbon_tolerance = 0}, rtt);
  ASSERT_TRUE(strict.ok()) << strict.status();
  EXPECT_DOUBLE_EQ(FlowTo((*strict)[0], "a/*").share, 1);
  absl::StatusOr<std::vector<RouteRow>> tolerant =
      RouteFlows({{"b/*", 1}}, destinations, {.carbon_tolerance = 10}, rtt);
  ASSERT_TRUE(tolerant.ok()) << tolerant.status();
  EXPECT_DOUBLE_EQ(FlowTo((*tolerant)[0], "b/*").share, 1);
  EXPECT_EQ(FlowTo((*tolerant)[0], "b/*").reason, "within the tolerance of the cleanest");
  EXPECT_EQ(FlowTo((*tolerant)[0], "a/*").reason, "as clean, but farther");
}

// A gateway's origin with no endpoints of its own: all its traffic must go somewhere, even
// beyond what the one reachable destination was sized for.
TEST(RouteFlows, DemandBeyondEveryCapacityOverflowsRatherThanFailing) {
  absl::StatusOr<std::vector<RouteRow>> rows =
      RouteFlows({{"gw/*", 1}}, {{"a/*", 0.2, 300}, {"b/*", 5, 100}},
                 {.max_rtt = absl::Milliseconds(20)}, Rtts({{{"gw/*", "a/*"}, 5}}));
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_DOUBLE_EQ(FlowTo((*rows)[0], "a/*").share, 1);
  EXPECT_EQ(FlowTo((*rows)[0], "a/*").reason,
            "beyond its capacity: nothing else within the limits had room");
}

TEST(RouteFlows, TheSameInputInAnyOrderGivesTheSameFlows) {
  std::mt19937 random(7);
  std::vector<RouteOrigin> origins;
  std::vector<RouteDestination> destinations;
  std::map<std::pair<std::string, std::string>, int> ms;
  for (int i = 0; i < 12; ++i) {
    const std::string locality = absl::StrCat("r", i, "/*");
    origins.push_back({locality, static_cast<double>(1 + random() % 5)});
    destinations.push_back({locality, static_cast<double>(1 + random() % 4),
                            static_cast<double>(100 * (random() % 4))});  // many ties
    for (int j = 0; j < i; ++j) ms[{absl::StrCat("r", j, "/*"), locality}] = 5 + random() % 40;
  }
  const RttLookup rtt = Rtts(ms);
  const RouteLimits limits{.max_rtt = absl::Milliseconds(30), .carbon_tolerance = 50};
  absl::StatusOr<std::vector<RouteRow>> first = RouteFlows(origins, destinations, limits, rtt);
  ASSERT_TRUE(first.ok()) << first.status();
  std::shuffle(origins.begin(), origins.end(), random);
  std::shuffle(destinations.begin(), destinations.end(), random);
  absl::StatusOr<std::vector<RouteRow>> second = RouteFlows(origins, destinations, limits, rtt);
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_EQ(first->size(), second->size());
  for (std::size_t o = 0; o < first->size(); ++o) {
    double sum = 0;
    for (std::size_t d = 0; d < (*first)[o].flows.size(); ++d) {
      const RouteFlow& a = (*first)[o].flows[d];
      const RouteFlow& b = (*second)[o].flows[d];
      EXPECT_EQ(a.destination, b.destination);
      EXPECT_EQ(a.share, b.share) << (*first)[o].origin << " → " << a.destination;
      if (a.rtt && *a.rtt > *limits.max_rtt) {
        EXPECT_EQ(a.share, 0);
      }
      sum += a.share;
    }
    EXPECT_NEAR(sum, 1, 1e-12);
  }
}

TEST(RouteFlows, MistakesNameTheFieldAndTheValue) {
  const RttLookup none = Rtts({});
  EXPECT_THAT(RouteFlows({{"a/*", -1}}, {}, {}, none),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("demand of \"a/*\"")));
  EXPECT_THAT(RouteFlows({}, {{"a/*", 1, NAN}}, {}, none),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("intensity of \"a/*\"")));
  EXPECT_THAT(RouteFlows({}, {{"a/*", 1, 1}, {"a/*", 1, 1}}, {}, none),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("given twice")));
  EXPECT_THAT(RouteFlows({}, {}, {.carbon_tolerance = -5}, none),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("got -5")));
}

}  // namespace
}  // namespace carbonroute::routing
