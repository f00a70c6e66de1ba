#include "contract/region_locations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace carbonroute
