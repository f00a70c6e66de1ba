#include "contract/metric_labels.h"

#include <gtest/gtest.h>

#include <set>

#include "contract/intensity_series.h"

namespace carbonroute {
namespace {

TEST(MetricLabels, RttMethodNamesRoundTrip) {
  for (RttMethod method : {RttMethod::kMeasured, RttMethod::kDeclared}) {
    EXPECT_EQ(ParseRttMethod(RttMethodName(method)), method);
  }
  EXPECT_EQ(RttMethodName(RttMethod::kMeasured), "measured");
  EXPECT_EQ(RttMethodName(RttMethod::kDeclared), "declared");
  EXPECT_EQ(ParseRttMethod("Measured"), std::nullopt);
  EXPECT_EQ(ParseRttMethod(""), std::nullopt);
}

TEST(MetricLabels, EstimatedIsTrueOrFalse) {
  EXPECT_EQ(EstimatedLabel(true), "true");
  EXPECT_EQ(EstimatedLabel(false), "false");
}

TEST(IntensitySeries, OrdersAndComparesByEveryField) {
  const IntensitySeries a{"em", "DE", EmissionsType::kAverage};
  const IntensitySeries b{"em", "DE", EmissionsType::kMarginal};
  const IntensitySeries c{"em", "FR", EmissionsType::kAverage};
  EXPECT_EQ(std::set<IntensitySeries>({a, b, c, a}).size(), 3u);
  EXPECT_TRUE(a < b);
  EXPECT_FALSE(a == b);
  EXPECT_EQ(b.ToString(), "em/DE/marginal");
}

}  // namespace
}  // namespace carbonroute
