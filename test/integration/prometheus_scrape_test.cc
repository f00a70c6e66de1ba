// Integration test (b): a real Prometheus server (Debian package
// `prometheus`) scrapes the real collector on loopback; the gauge read back
// through Prometheus's HTTP API equals the CSV.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "test/testing/collector_process.h"
#include "test/testing/prometheus_process.h"
#include "test/testing/temp_dir.h"
#include "test/testing/trace_csv.h"

namespace carbonroute {
namespace {

TEST(PrometheusScrape, IntensityReadBackThroughTheQueryApiEqualsTheCsv) {
  ASSERT_TRUE(std::filesystem::exists(testing::kPrometheusBinary))
      << "install Debian's prometheus package (./scripts/test does)";
  testing::ScopedTempDir temp_dir;  // prometheus_scrape
  const std::string& dir = temp_dir.path();
  const testing::TraceCsv csv;
  const std::vector<std::string> zones = {"DE", "FR", "GB", "NO-NO1", "PL"};

  const absl::Time before = absl::Now();
  testing::CollectorProcess collector =
      testing::StartCollector(dir, absl::StrCat(R"yaml(
listen_address: 127.0.0.1:0
database: )yaml",
                                                dir, R"yaml(/collector.sqlite
node: {name: prom-node}
providers:
  - {type: replay, locations: [DE, FR, GB, NO-NO1, PL]}
)yaml"));
  ASSERT_GT(collector.port, 0) << collector.process->Log();

  std::unique_ptr<testing::Subprocess> prometheus =
      testing::StartPrometheus(dir, 0, {{"carbonroute", collector.port}});
  const int prometheus_port = testing::PrometheusPort(*prometheus);
  ASSERT_GT(prometheus_port, 0) << prometheus->Log();

  // Wait until Prometheus has scraped every replayed zone.
  const nlohmann::json result = testing::WaitForSeries(
      prometheus_port, "carbonroute_carbon_intensity_grams_per_kilowatt_hour", zones.size());
  const absl::Time after = absl::Now();
  const bool scraped = result.size() == zones.size();
  ASSERT_TRUE(scraped) << prometheus->Log();

  for (const nlohmann::json& series : result) {
    const std::string zone = series["metric"]["location"].get<std::string>();
    EXPECT_EQ(series["metric"]["provider"], "replay");
    EXPECT_EQ(series["metric"]["emissions_type"], "average");
    EXPECT_EQ(series["metric"]["job"], "carbonroute");
    double value = 0;
    ASSERT_TRUE(absl::SimpleAtod(series["value"][1].get<std::string>(), &value));
    EXPECT_THAT(value, ::testing::AnyOf(csv.ServedAt(before, zone), csv.ServedAt(after, zone)))
        << zone;
  }
  EXPECT_EQ(prometheus->Terminate(), 0);
  EXPECT_EQ(collector.process->Terminate(), 0);
}

}  // namespace
}  // namespace carbonroute
