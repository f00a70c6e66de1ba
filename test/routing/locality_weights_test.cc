#include "routing/locality_weights.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <random>

#include "absl/strings/str_cat.h"
#include "routing/istio_distribute.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::routing {

void PrintTo(const LocalityWeight& weight, std::ostream* out) {
  *out << weight.locality << ": " << weight.percent;
}

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::IsOkAndHolds;
using testing::StatusIs;

LocalityWeight W(const std::string& locality, int percent) { return {locality, percent}; }

TEST(PercentWeights, LargestRemaindersGetThePointsLeft) {
  // 1/3 each: 33 + 33 + 33, the point left to the nearest (RTT), whatever the order given.
  const std::vector<DestinationShare> thirds = {{"c/*", 1, absl::Milliseconds(30)},
                                                {"a/*", 1, absl::Milliseconds(20)},
                                                {"b/*", 1, absl::Milliseconds(5)}};
  EXPECT_THAT(PercentWeights(thirds),
              IsOkAndHolds(ElementsAre(W("b/*", 34), W("a/*", 33), W("c/*", 33))));
  std::vector<DestinationShare> reversed(thirds.rbegin(), thirds.rend());
  EXPECT_THAT(PercentWeights(reversed),
              IsOkAndHolds(ElementsAre(W("b/*", 34), W("a/*", 33), W("c/*", 33))));
  // Equal RTTs: the name breaks the tie.
  EXPECT_THAT(PercentWeights({{"z/*", 1}, {"y/*", 1}, {"x/*", 1}}),
              IsOkAndHolds(ElementsAre(W("x/*", 34), W("y/*", 33), W("z/*", 33))));
  // 99.5 % and 0.5 %: exact remainders tie at .5, the nearer gets the point.
  EXPECT_THAT(PercentWeights({{"far/*", 0.5, absl::Milliseconds(80)},
                              {"near/*", 99.5, absl::Milliseconds(1)}}),
              IsOkAndHolds(ElementsAre(W("near/*", 100))));
  EXPECT_THAT(PercentWeights({{"far/*", 0.5, absl::Milliseconds(1)},
                              {"near/*", 99.5, absl::Milliseconds(80)}}),
              IsOkAndHolds(ElementsAre(W("near/*", 99), W("far/*", 1))));
  // A share that rounds to 0 is left out; any scale of shares.
  // 98.9, 0.4, 0.7: the two points left go to .9 and .7.
  EXPECT_THAT(PercentWeights({{"a/*", 9890}, {"b/*", 40}, {"c/*", 70}}),
              IsOkAndHolds(ElementsAre(W("a/*", 99), W("c/*", 1))));
  EXPECT_THAT(PercentWeights({{"only/*", 1e-300}}), IsOkAndHolds(ElementsAre(W("only/*", 100))));
}

TEST(PercentWeights, RefusesWhatCannotBeARow) {
  EXPECT_THAT(PercentWeights({}), StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT(
      PercentWeights({{"a/*", 0}, {"b/*", 0}}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("every destination's share is 0")));
  EXPECT_THAT(PercentWeights({{"a/*", 1}, {"a/*", 2}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"a/*\" is given twice")));
  EXPECT_THAT(PercentWeights({{"a/*", -1}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("share of \"a/*\": -1")));
  EXPECT_THAT(PercentWeights({{"a/*", std::nan("")}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("share of \"a/*\"")));
  EXPECT_THAT(PercentWeights({{"a/*", 1e308}, {"b/*", 1e308}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not finite")));
  EXPECT_THAT(PercentWeights({{"", 1}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no locality")));
}

// 1,000 random weight matrices (each origin a row) and their rounding edge
// cases: every row passes Istio's rules, each percentage is within one point
// of its exact share, and the same shares shuffled give the same row.
TEST(PercentWeights, AThousandRandomMatricesPassIstiosRules) {
  std::mt19937 random(20261128);
  int rows_checked = 0, left_out = 0;
  for (int matrix = 0; matrix < 1000; ++matrix) {
    SCOPED_TRACE(absl::StrCat("matrix ", matrix));
    const int origins = 1 + static_cast<int>(random() % 12);
    // Up to 150 destinations: more than 100 forces some out of every row.
    const int destinations = 1 + static_cast<int>(random() % (matrix % 10 == 0 ? 150 : 12));
    LocalityLbSetting setting;
    for (int o = 0; o < origins; ++o) {
      std::vector<DestinationShare> shares;
      for (int d = 0; d < destinations; ++d) {
        double share = std::uniform_real_distribution<double>(0, 10)(random);
        switch (random() % 6) {
          case 0:
            share = 0;
            break;  // no flow
          case 1:
            share = 1;
            break;  // ties
          case 2:
            share = (d == 0) ? 199 : 1.0 / destinations;
            break;  // one at ~99.5 %
          default:
            break;
        }
        shares.push_back({absl::StrCat("region-", d, "/*"), share,
                          absl::Milliseconds(static_cast<int>(random() % 4) * 10)});
      }
      if (std::all_of(shares.begin(), shares.end(), [](const auto& s) { return s.share == 0; })) {
        shares[0].share = 1;
      }
      absl::StatusOr<std::vector<LocalityWeight>> row = PercentWeights(shares);
      ASSERT_THAT(row, IsOk());
      double total = 0;
      for (const DestinationShare& share : shares) total += share.share;
      for (const DestinationShare& share : shares) {
        const auto it = std::find_if(row->begin(), row->end(),
                                     [&](const auto& w) { return w.locality == share.locality; });
        const int percent = it == row->end() ? 0 : it->percent;
        left_out += share.share > 0 && percent == 0;
        EXPECT_LT(std::abs(percent - 100 * share.share / total), 1.0) << share.locality;
      }
      std::shuffle(shares.begin(), shares.end(), random);
      EXPECT_THAT(PercentWeights(shares), IsOkAndHolds(*row));
      DistributeRow distribute{absl::StrCat("origin-", o, "/*"), {}};
      for (const LocalityWeight& weight : *row)
        distribute.to.emplace_back(weight.locality, weight.percent);
      setting.distribute.push_back(std::move(distribute));
      ++rows_checked;
    }
    ASSERT_THAT(CheckLocalityLbSetting(setting), IsOk());
  }
  EXPECT_GT(rows_checked, 1000);
  EXPECT_GT(left_out, 0) << "no row left a destination out: the >100-destination case never ran";
}

}  // namespace
}  // namespace carbonroute::routing
