// Integration test: the Carbon Aware SDK's own integration collection
// (clients/tests/tests.postman_collection.json in
// Green-Software-Foundation/carbon-aware-sdk), written again as
// test/carbon_aware/sdk-collection/carbonroute.postman_collection.json with
// carbonroute's requests after it, run by newman against a real collector, and
// every answer validated against the SDK's OpenAPI document
// (test/carbon_aware/sdk-openapi/swagger.yaml). The collector's static provider
// serves US-MIDA-PJM and BE, so an Azure (eastus), AWS (us-east-1), Google
// Cloud (europe-west1) and Oracle Cloud (us-ashburn-1) region each answer with
// their grid zone's reading.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/utc_time.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/shell.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

constexpr char kPjm[] = "385.5";  // gCO2eq/kWh the static provider serves
constexpr char kBe[] = "160.25";

TEST(SdkCollection, TheSdksOwnTestsAndTheFourCloudsRegionsPassThroughNewman) {
  const std::string modules = testing::NpmTools("sdk-collection");
  ASSERT_FALSE(modules.empty()) << "npm tools could not be installed (scripts/lib/npm_tools.sh)";
  testing::ScopedTempDir dir;
  // A static reading is valid for the hour it falls in; the collection asks for that hour.
  const absl::Time hour = absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()) / 3600 * 3600);
  testing::CollectorProcess collector = testing::StartCollector(
      dir.path(), absl::StrCat("listen_address: 127.0.0.1:0\ndatabase: ", dir.path(),
                               "/cache.sqlite\nnode: {name: sdk-node}\n"
                               "poll: {interval: 1s, forecast_horizon: 24h}\n"
                               "providers:\n  - {type: static, values: {US-MIDA-PJM: ",
                               kPjm, ", BE: ", kBe, "}}\n"));
  ASSERT_GT(collector.port, 0) << collector.process->Log();

  const testing::ShellRun run = testing::Shell(absl::StrCat(
      "cd ", dir.path(), " && NODE_PATH=", modules, " node ", CARBONROUTE_SOURCE_DIR,
      "/test/carbon_aware/sdk-collection/run_collection.cjs http://127.0.0.1:", collector.port, " ",
      UtcSeconds(hour), " ", UtcSeconds(hour + absl::Hours(1)), " ", kPjm, " ", kBe, " 2>&1"));
  std::cout << run.output;  // newman's summary, in the test log
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, ::testing::HasSubstr(": 0 invalid; newman: 0 failed assertions"));
  EXPECT_EQ(collector.process->Terminate(), 0);
}

}  // namespace
}  // namespace carbonroute
