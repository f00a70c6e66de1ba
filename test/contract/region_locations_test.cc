#include "contract/region_locations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/data_files.h"
#include "test/testing/build_paths.h"
#include "test/testing/status_matchers.h"

namespace carbonroute {
namespace {

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

}  // namespace
}  // namespace carbonroute
