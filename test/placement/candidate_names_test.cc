#include "placement/candidate_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/testing/status_matchers.h"

namespace carbonroute::placement {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

PlacementFacts Model() {
  PlacementFacts m;
  m.carbon["DE"].grams_per_kwh = 400;
  m.carbon["FR"].grams_per_kwh = 60;
  m.nodes["demo-node"] = {"BE", "europe-west1"};
  m.region_locations["europe-west1"] = "BE";
  m.region_locations["europe-west9"] = "FR";
  return m;
}

TEST(CandidateNames, AKnownLocationWithoutAReadingIsStillKnown) {
  EXPECT_THAT(KnownNames(PlacementModel(Model()), "locations"), ElementsAre("BE", "DE", "FR"));
}

TEST(CandidateNames, UnknownNamesAreErrorsListingTheKnownOnes) {
  EXPECT_THAT(ResolveNames(PlacementModel(Model()), "locations", {"DE", "XX"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "unknown location \"XX\"; known: BE, DE, FR (3)"));
}

TEST(CandidateNames, LetterCaseIsCorrectedWithANote) {
  absl::StatusOr<ResolvedNames> names =
      ResolveNames(PlacementModel(Model()), "locations", {"de", "FR"});
  ASSERT_THAT(names, IsOk());
  EXPECT_THAT(names->names, ElementsAre("DE", "FR"));
  EXPECT_THAT(names->notes, ElementsAre("\"de\" taken as location \"DE\""));
}

TEST(CandidateNames, ACloudRegionAmongLocationsIsTakenAsItsGridLocation) {
  absl::StatusOr<ResolvedNames> names =
      ResolveNames(PlacementModel(Model()), "locations", {"Europe-West9", "DE"});
  ASSERT_THAT(names, IsOk());
  EXPECT_THAT(names->names, ElementsAre("FR", "DE"));
  EXPECT_THAT(names->notes, ElementsAre("\"Europe-West9\" taken as location \"FR\" (the grid "
                                        "location of region europe-west9)"));
  EXPECT_THAT(ResolveNames(PlacementModel(Model()), "locations", {"europe-west99"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown location")));
}

TEST(CandidateNames, ExplainLooksForANodeThenARegionThenALocation) {
  EXPECT_EQ(KindOfName(PlacementModel(Model()), "demo-node")->kind, "nodes");
  EXPECT_EQ(KindOfName(PlacementModel(Model()), "europe-west9")->kind, "regions");
  EXPECT_EQ(KindOfName(PlacementModel(Model()), "BE")->kind, "locations");
  EXPECT_THAT(KindOfName(PlacementModel(Model()), "mars").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("\"mars\" is not a node, region or location")));
}

}  // namespace
}  // namespace carbonroute::placement
