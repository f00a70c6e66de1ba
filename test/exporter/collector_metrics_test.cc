#include "exporter/collector_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "contract/metric_names.h"
#include "prometheus/text_serializer.h"

namespace carbonroute::exporter {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The record the status page reads is the one SetIntensity was given, in every
// field, and it goes when the exported series goes; the gauges agree with it.
TEST(CollectorMetrics, TheStatusPageReadsTheRecordThatWasExported) {
  prometheus::Registry registry;
  CollectorMetrics metrics(registry);
  const absl::Time fetched = absl::FromUnixSeconds(1'800'000'000);
  const IntensitySeries de{"em", "DE", EmissionsType::kAverage};
  const IntensitySeries caiso{"wt", "CAISO_NORTH", EmissionsType::kMarginal};
  CollectorMetrics::ExportedReading reading;
  reading.value = 558.6;
  reading.estimated = true;
  reading.valid_to = fetched + absl::Hours(1);
  reading.fetched_at = fetched;
  metrics.SetIntensity(de, reading, fetched + absl::Minutes(5));
  CollectorMetrics::ExportedReading percentile;
  percentile.kind = ValueKind::kPercentile;
  percentile.value = 42;
  percentile.valid_to = fetched + absl::Minutes(5);
  percentile.fetched_at = fetched - absl::Minutes(1);
  metrics.SetIntensity(caiso, percentile, fetched);

  std::map<IntensitySeries, CollectorMetrics::ExportedReading> exported =
      metrics.ExportedReadings();
  ASSERT_EQ(exported.size(), 2u);
  const CollectorMetrics::ExportedReading& shown = exported.at(de);
  EXPECT_EQ(shown.kind, ValueKind::kGramsPerKwh);
  EXPECT_EQ(shown.value, 558.6);
  EXPECT_TRUE(shown.estimated);
  EXPECT_EQ(shown.valid_to, reading.valid_to);
  EXPECT_EQ(shown.fetched_at, fetched);
  EXPECT_EQ(exported.at(caiso).kind, ValueKind::kPercentile);
  EXPECT_EQ(exported.at(caiso).value, 42);
  const std::string page = prometheus::TextSerializer().Serialize(registry.Collect());
  EXPECT_THAT(page, HasSubstr(std::string(metric_names::kCarbonIntensity) +
                              "{emissions_type=\"average\",estimated=\"true\",location=\"DE\","
                              "provider=\"em\"} 558.6"));

  // A later reading of the same series replaces the record; a kind that
  // changes moves the value to the other family.
  percentile.kind = ValueKind::kGramsPerKwh;
  percentile.value = 231.5;
  metrics.SetIntensity(caiso, percentile, fetched);
  EXPECT_EQ(metrics.ExportedReadings().at(caiso).kind, ValueKind::kGramsPerKwh);
  EXPECT_THAT(prometheus::TextSerializer().Serialize(registry.Collect()),
              Not(HasSubstr(std::string(metric_names::kCarbonIntensityPercentile) + "{")));

  metrics.ClearIntensity(de);
  exported = metrics.ExportedReadings();
  EXPECT_FALSE(exported.contains(de));
  EXPECT_EQ(exported.at(caiso).value, 231.5);
}

}  // namespace
}  // namespace carbonroute::exporter
