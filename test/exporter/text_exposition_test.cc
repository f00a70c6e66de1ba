#include "exporter/text_exposition.h"

#include <gtest/gtest.h>

#include <limits>

#include "exporter/metrics_page.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "prometheus/summary.h"
#include "test/testing/metrics_scrape.h"

namespace carbonroute::exporter {
namespace {

std::string Value(double value) {
  std::string out;
  AppendSampleValue(out, value);
  return out;
}

TEST(TextExposition, ValuesAreTheShortestTextThatReadsBackExactly) {
  EXPECT_EQ(Value(40), "40");
  EXPECT_EQ(Value(0.005), "0.005");
  EXPECT_EQ(Value(5e-05), "5e-05");
  EXPECT_EQ(Value(0.0001), "0.0001");
  EXPECT_EQ(Value(1e21), "1e+21");
  EXPECT_EQ(Value(1.2345678901234568e17), "123456789012345680");
  EXPECT_EQ(Value(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(Value(1795600800), "1795600800");
  EXPECT_EQ(Value(-2.5), "-2.5");
  EXPECT_EQ(Value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(Value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(Value(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(TextExposition, LabelValuesEscapeBackslashQuoteAndNewlineOnly) {
  std::string out;
  AppendLabelValue(out, "a\\b\"c\nd\te");
  EXPECT_EQ(out, "a\\\\b\\\"c\\nd\te");
}

TEST(TextExposition, AFamilyHeaderIsHelpThenType) {
  std::string out;
  AppendFamilyHeader(out, "m_total", "Things.", "counter");
  EXPECT_EQ(out, "# HELP m_total Things.\n# TYPE m_total counter\n");
}

// The demo's replayed DE reading, 552.68 gCO2eq/kWh, was exported as
// 552.6799999999999 (prometheus-cpp's TextSerializer: 16 significant digits).
TEST(TextExposition, TheMetricsPagePrintsTheShortestValueThatReadsBack) {
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildGauge()
      .Name("intensity")
      .Help("Grid intensity.")
      .Register(*registry)
      .Add({{"location", "DE"}})
      .Set(552.68);
  prometheus::BuildCounter()
      .Name("calls_total")
      .Help("Calls.")
      .Register(*registry)
      .Add({})
      .Increment(944.18);
  const std::string page = testing::ScrapeMetricsPage(*registry);
  EXPECT_NE(page.find("intensity{location=\"DE\"} 552.68\n"), std::string::npos) << page;
  EXPECT_NE(page.find("calls_total 944.18\n"), std::string::npos) << page;
  EXPECT_EQ(page.find("552.679"), std::string::npos) << page;
}

TEST(TextExposition, AFamilyIsLaidOutAsPrometheusCppLaysItOut) {
  prometheus::Registry registry;
  prometheus::BuildHistogram()
      .Name("rtt_seconds")
      .Help("RTT.")
      .Register(registry)
      .Add({{"peer", "a\"b"}}, prometheus::Histogram::BucketBoundaries{0.005, 0.1})
      .Observe(0.03);
  prometheus::BuildSummary()
      .Name("poll_seconds")
      .Register(registry)
      .Add({}, prometheus::Summary::Quantiles{{0.5, 0.05}})
      .Observe(0.25);
  std::string out;
  for (const prometheus::MetricFamily& family : registry.Collect()) AppendFamily(out, family);
  EXPECT_EQ(out,
            "# HELP rtt_seconds RTT.\n"
            "# TYPE rtt_seconds histogram\n"
            "rtt_seconds_count{peer=\"a\\\"b\"} 1\n"
            "rtt_seconds_sum{peer=\"a\\\"b\"} 0.03\n"
            "rtt_seconds_bucket{peer=\"a\\\"b\",le=\"0.005\"} 0\n"
            "rtt_seconds_bucket{peer=\"a\\\"b\",le=\"0.1\"} 1\n"
            "rtt_seconds_bucket{peer=\"a\\\"b\",le=\"+Inf\"} 1\n"
            "# TYPE poll_seconds summary\n"
            "poll_seconds_count 1\n"
            "poll_seconds_sum 0.25\n"
            "poll_seconds{quantile=\"0.5\"} 0.25\n");
}

}  // namespace
}  // namespace carbonroute::exporter
