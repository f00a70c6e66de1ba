#include "contract/region_locations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "base/data_files.h"
#include "test/testing/build_paths.h"
#include "test/testing/status_matchers.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

TEST(ParseRegionLocationsCsv, ReadsRowsAfterTheHeader) {
  absl::StatusOr<std::map<std::string, std::string, std::less<>>> map = ParseRegionLocationsCsv(
      "gcp_region,zone\r\neurope-west1,BE\n\nus-central1,US-MIDW-MISO\n", "z.csv");
  ASSERT_THAT(map, IsOk());
  EXPECT_EQ(map->size(), 2u);
  EXPECT_EQ(map->at("europe-west1"), "BE");
  EXPECT_EQ(map->at("us-central1"), "US-MIDW-MISO");
}

TEST(ParseRegionLocationsCsv, NamesTheLineOfAMalformedRow) {
  EXPECT_THAT(ParseRegionLocationsCsv("gcp_region,zone\neurope-west1,BE,extra\n", "z.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument, "z.csv:2: expected 2 cells, got 3"));
  EXPECT_THAT(ParseRegionLocationsCsv("gcp_region,zone\neurope-west1,BE\n,FR\n", "z.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument, "z.csv:3: empty region or zone"));
}

TEST(ParseRegionCoordinatesCsv, ShippedTableCoversEveryRegionOfTheZoneMap) {
  absl::StatusOr<std::string> zones =
      ReadFileToString(std::string(CARBONROUTE_SOURCE_DIR) + "/data/gcp-region-zones.csv", "zones");
  absl::StatusOr<std::string> coordinates = ReadFileToString(
      std::string(CARBONROUTE_SOURCE_DIR) + "/data/gcp-region-coordinates.csv", "coordinates");
  ASSERT_THAT(zones, IsOk());
  ASSERT_THAT(coordinates, IsOk());
  auto zone_map = ParseRegionLocationsCsv(*zones, "zones");
  auto coordinate_map = ParseRegionCoordinatesCsv(*coordinates, "coordinates");
  ASSERT_THAT(zone_map, IsOk());
  ASSERT_THAT(coordinate_map, IsOk());
  for (const auto& [region, zone] : *zone_map) {
    EXPECT_TRUE(coordinate_map->contains(region)) << region;
  }
  EXPECT_EQ(coordinate_map->at("us-west2"), "34.05,-118.24");
}

TEST(ParseRegionCoordinatesCsv, RejectsCoordinatesOffTheGlobe) {
  EXPECT_THAT(
      ParseRegionCoordinatesCsv("gcp_region,latitude,longitude\nx,91,0\n", "c.csv"),
      StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("c.csv:2: expected")));
  EXPECT_THAT(ParseRegionCoordinatesCsv("gcp_region,latitude,longitude\nx,north,0\n", "c.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("c.csv:2")));
}

TEST(ParseRegionLocationsCsv, ReadsTheCloudRegionTableWithUnknownZonesAsEmpty) {
  constexpr char kTable[] =
      "provider,region,zone,watttime_region,latitude,longitude\n"
      "azure,eastus,US-MIDA-PJM,PJM_DC,37.37,-79.82\n"
      "aws,cn-north-1,,CHN,39.90,116.41\n"
      "oracle,us-ashburn-1,US-MIDA-PJM,,,\n";
  auto zones = ParseRegionLocationsCsv(kTable, "cloud.csv");
  ASSERT_THAT(zones, IsOk());
  EXPECT_EQ(zones->at("eastus"), "US-MIDA-PJM");
  EXPECT_EQ(zones->at("cn-north-1"), "");  // known region, unknown zone
  auto coordinates = ParseRegionCoordinatesCsv(kTable, "cloud.csv");
  ASSERT_THAT(coordinates, IsOk());
  EXPECT_EQ(coordinates->at("eastus"), "37.37,-79.82");
  EXPECT_FALSE(coordinates->contains("us-ashburn-1"));  // no coordinates: left out
  EXPECT_THAT(ParseRegionLocationsCsv(
                  "provider,region,zone,watttime_region,latitude,longitude\naws,,DE,,1,2\n", "c"),
              StatusIs(absl::StatusCode::kInvalidArgument, "c:2: empty region"));
  EXPECT_THAT(ParseRegionCoordinatesCsv(
                  "provider,region,zone,watttime_region,latitude,longitude\naws,x,DE,,95,2\n", "c"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("c:2: expected a latitude")));
}

// The shipped table: one row per region name across the four providers, the
// issue's four regions in the zones their providers' region pages place them.
TEST(ParseRegionLocationsCsv, ShippedCloudRegionTable) {
  absl::StatusOr<std::string> csv =
      ReadFileToString(std::string(CARBONROUTE_SOURCE_DIR) + "/data/cloud-regions.csv", "regions");
  ASSERT_THAT(csv, IsOk());
  std::set<std::string> names;
  std::map<std::string, int> per_provider;
  for (absl::string_view line : absl::StrSplit(*csv, '\n', absl::SkipEmpty())) {
    const std::vector<std::string> cells = absl::StrSplit(line, ',');
    ASSERT_EQ(cells.size(), 6u) << line;
    EXPECT_TRUE(names.insert(cells[1]).second) << "listed twice: " << cells[1];
    ++per_provider[cells[0]];
  }
  EXPECT_GE(per_provider["aws"], 30);
  EXPECT_GE(per_provider["azure"], 50);
  EXPECT_GE(per_provider["gcp"], 40);
  EXPECT_GE(per_provider["oracle"], 40);
  auto zones = ParseRegionLocationsCsv(*csv, "regions");
  auto coordinates = ParseRegionCoordinatesCsv(*csv, "regions");
  ASSERT_THAT(zones, IsOk());
  ASSERT_THAT(coordinates, IsOk());
  EXPECT_EQ(zones->at("eastus"), "US-MIDA-PJM");        // Azure, Virginia
  EXPECT_EQ(zones->at("us-east-1"), "US-MIDA-PJM");     // AWS, Northern Virginia
  EXPECT_EQ(zones->at("europe-west1"), "BE");           // Google Cloud, Belgium
  EXPECT_EQ(zones->at("us-ashburn-1"), "US-MIDA-PJM");  // Oracle Cloud, Ashburn
  EXPECT_EQ(zones->at("northeurope"), "IE");            // Azure's North Europe is Dublin
  EXPECT_EQ(zones->at("cn-north-1"), "");               // no source names its zone
  // Every Google Cloud region of the study's map is in the table.
  auto study = ParseRegionLocationsCsv(
      *ReadFileToString(std::string(CARBONROUTE_SOURCE_DIR) + "/data/gcp-region-zones.csv", "z"),
      "z");
  ASSERT_THAT(study, IsOk());
  for (const auto& [region, zone] : *study) EXPECT_TRUE(zones->contains(region)) << region;
  EXPECT_EQ(coordinates->at("us-west2"), "34.05,-118.24");
}

}  // namespace
}  // namespace carbonroute
