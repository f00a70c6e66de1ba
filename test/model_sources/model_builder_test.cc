#include "model_sources/model_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/testing/status_matchers.h"

namespace carbonroute::model_sources {

using placement::LocationCarbon;
using placement::PlacementFacts;
namespace {

using testing::IsOk;
using testing::StatusIs;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

std::vector<Sample> Parse(const char* text) {
  absl::StatusOr<Exposition> e = ParseExposition(text);
  EXPECT_THAT(e, IsOk());
  return e.ok() ? e->samples : std::vector<Sample>{};
}

TEST(ModelBuilder, ReadsCarbonForecastNodesAndRtt) {
  ModelBuilder builder(kNow);
  builder.AddSamples(Parse(
      "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\",estimated="
      "\"true\",location=\"DE\",provider=\"em\"} 400\n"
      "carbonroute_carbon_intensity_valid_to_timestamp_seconds{emissions_type=\"average\",location="
      "\"DE\",provider=\"em\"} 1800003600\n"
      "carbonroute_carbon_intensity_forecast_mean_grams_per_kilowatt_hour{emissions_type="
      "\"average\",location=\"DE\",provider=\"em\",window=\"4h\"} 350\n"
      "carbonroute_node_info{location=\"DE\",node=\"node-a\",region=\"europe-west3\"} 1\n"
      "carbonroute_rtt_seconds{source=\"node-a\",target=\"node-b\"} 0.0123\n"
      "carbonroute_rtt_seconds{method=\"declared\",source=\"node-a\",target=\"node-c\"} 0.040\n"
      "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\",estimated="
      "\"false\",location=\"XX\",provider=\"em\"} NaN\n"));
  auto model = std::make_shared<const PlacementFacts>(builder.BuildFacts());
  ASSERT_EQ(model->carbon.size(), 1u);  // the NaN series is no data
  const LocationCarbon& de = model->carbon.at("DE");
  EXPECT_EQ(de.grams_per_kwh, 400);
  EXPECT_TRUE(de.estimated);
  EXPECT_EQ(de.valid_to, absl::FromUnixSeconds(1800003600));
  EXPECT_EQ(de.forecast_mean.at("4h"), 350);
  EXPECT_EQ(model->nodes.at("node-a").region, "europe-west3");
  EXPECT_EQ(model->rtt.at("node-a").at("node-b").rtt, absl::Microseconds(12300));
  EXPECT_EQ(model->rtt.at("node-a").at("node-b").method, RttMethod::kMeasured);
  EXPECT_EQ(model->rtt.at("node-a").at("node-c").method, RttMethod::kDeclared);
}

TEST(ModelBuilder, ApiNodesWithoutACollectorJoinAndAMismatchIsNamed) {
  ModelBuilder builder(kNow);
  builder.AddSamples(
      Parse("carbonroute_node_info{location=\"DE\",node=\"node-a\",region=\"europe-west3\"} 1\n"));
  ASSERT_THAT(builder.AddRegionLocationsCsv("gcp_region,zone\neurope-west3,DE\neurope-north1,FI\n",
                                            "regions.csv"),
              IsOk());
  const std::vector<std::string> mismatches = builder.AddApiNodes({
      {.name = "node-a", .region = "europe-west3", .location = "FR"},  // its label says FR
      {.name = "liqo-finland", .region = "europe-north1", .virtual_node = true},
      {.name = "liqo-nowhere", .virtual_node = true},
  });
  ASSERT_EQ(mismatches.size(), 1u);
  EXPECT_THAT(mismatches[0], ::testing::HasSubstr("node-a"));
  EXPECT_THAT(mismatches[0], ::testing::HasSubstr("says DE, the Node object FR"));
  const PlacementFacts facts = builder.BuildFacts();
  EXPECT_EQ(facts.nodes.at("node-a").location, "DE");        // the collector's is used
  EXPECT_EQ(facts.nodes.at("liqo-finland").location, "FI");  // its region through the map
  EXPECT_EQ(facts.nodes.at("liqo-finland").region, "europe-north1");
  EXPECT_EQ(facts.nodes.at("liqo-nowhere").location, "");  // known, without a location
}

TEST(ModelBuilder, AMeasuredRttWinsOverADeclaredOneInEitherOrder) {
  ModelBuilder builder(kNow);
  builder.AddSamples(
      Parse("carbonroute_rtt_seconds{method=\"measured\",source=\"a\",target=\"b\"} 0.0001\n"
            "carbonroute_rtt_seconds{method=\"declared\",source=\"a\",target=\"b\"} 0.007\n"
            "carbonroute_rtt_seconds{method=\"declared\",source=\"a\",target=\"c\"} 0.007\n"
            "carbonroute_rtt_seconds{method=\"measured\",source=\"a\",target=\"c\"} 0.0002\n"
            "carbonroute_rtt_seconds{method=\"declared\",source=\"a\",target=\"d\"} 0.007\n"
            "carbonroute_rtt_seconds{method=\"declared\",source=\"a\",target=\"d\"} 0.008\n"));
  auto model = std::make_shared<const PlacementFacts>(builder.BuildFacts());
  EXPECT_EQ(model->rtt.at("a").at("b").method, RttMethod::kMeasured);
  EXPECT_EQ(model->rtt.at("a").at("b").rtt, absl::Microseconds(100));
  EXPECT_EQ(model->rtt.at("a").at("c").method, RttMethod::kMeasured);
  EXPECT_EQ(model->rtt.at("a").at("c").rtt, absl::Microseconds(200));
  EXPECT_EQ(model->rtt.at("a").at("d").rtt, absl::Milliseconds(8));  // same method: the later one
}

TEST(ModelBuilder, PreferredEmissionsTypeThenLatestValidToWins) {
  ModelBuilder builder(kNow, EmissionsType::kMarginal);
  builder.AddSamples(
      Parse("carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\","
            "location=\"CAISO_NORTH\",provider=\"em\"} 200\n"
            "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"marginal\","
            "location=\"CAISO_NORTH\",provider=\"watttime\"} 420\n"
            "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\","
            "location=\"FR\",provider=\"a\"} 60\n"
            "carbonroute_carbon_intensity_valid_to_timestamp_seconds{emissions_type=\"average\","
            "location=\"FR\",provider=\"a\"} 1800000600\n"));
  // The same FR series scraped again from a second collector, later.
  builder.AddSamples(
      Parse("carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\","
            "location=\"FR\",provider=\"a\"} 55\n"
            "carbonroute_carbon_intensity_valid_to_timestamp_seconds{emissions_type=\"average\","
            "location=\"FR\",provider=\"a\"} 1800003600\n"));
  auto model = std::make_shared<const PlacementFacts>(builder.BuildFacts());
  EXPECT_EQ(model->carbon.at("CAISO_NORTH").grams_per_kwh, 420);
  EXPECT_EQ(model->carbon.at("FR").grams_per_kwh, 55);
}

TEST(ModelBuilder, CopiesOfOneSeriesFromTwoReplicasAreOneReadingTheFreshestValid) {
  // The carbon role's two replicas: r2 has fetched the next hour already, r1
  // still exports the last one (in grace). Each value goes with its own valid_to.
  const char* kCopies =
      "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"marginal\","
      "estimated=\"false\",instance=\"r1\",location=\"US-CAL-CISO\",provider=\"wt\"} 500\n"
      "carbonroute_carbon_intensity_valid_to_timestamp_seconds{emissions_type=\"marginal\","
      "instance=\"r1\",location=\"US-CAL-CISO\",provider=\"wt\"} 1799999700\n"
      "carbonroute_carbon_intensity_age_seconds{emissions_type=\"marginal\",instance=\"r1\","
      "location=\"US-CAL-CISO\",provider=\"wt\"} 600\n"
      "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"marginal\","
      "estimated=\"false\",instance=\"r2\",location=\"US-CAL-CISO\",provider=\"wt\"} 300\n"
      "carbonroute_carbon_intensity_valid_to_timestamp_seconds{emissions_type=\"marginal\","
      "instance=\"r2\",location=\"US-CAL-CISO\",provider=\"wt\"} 1800000300\n"
      "carbonroute_carbon_intensity_age_seconds{emissions_type=\"marginal\",instance=\"r2\","
      "location=\"US-CAL-CISO\",provider=\"wt\"} 10\n";
  ModelBuilder builder(kNow);
  builder.AddSamples(Parse(kCopies));
  PlacementFacts facts = builder.BuildFacts();
  EXPECT_EQ(facts.carbon.at("US-CAL-CISO").grams_per_kwh, 300);
  EXPECT_EQ(facts.carbon.at("US-CAL-CISO").valid_to, absl::FromUnixSeconds(1800000300));

  // Both valid to the same time: the one fetched last.
  ModelBuilder same(kNow);
  same.AddSamples(
      Parse("carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\","
            "estimated=\"false\",instance=\"r1\",location=\"DE\",provider=\"em\"} 410\n"
            "carbonroute_carbon_intensity_valid_to_timestamp_seconds{emissions_type=\"average\","
            "instance=\"r1\",location=\"DE\",provider=\"em\"} 1800003600\n"
            "carbonroute_carbon_intensity_age_seconds{emissions_type=\"average\",instance=\"r1\","
            "location=\"DE\",provider=\"em\"} 5\n"
            "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\","
            "estimated=\"false\",instance=\"r2\",location=\"DE\",provider=\"em\"} 400\n"
            "carbonroute_carbon_intensity_valid_to_timestamp_seconds{emissions_type=\"average\","
            "instance=\"r2\",location=\"DE\",provider=\"em\"} 1800003600\n"
            "carbonroute_carbon_intensity_age_seconds{emissions_type=\"average\",instance=\"r2\","
            "location=\"DE\",provider=\"em\"} 900\n"));
  EXPECT_EQ(same.BuildFacts().carbon.at("DE").grams_per_kwh, 410);
}

TEST(ModelBuilder, StaticMatrixAndRegionMap) {
  ModelBuilder builder(kNow);
  ASSERT_THAT(
      builder.AddStaticRttCsv(
          "sending_region,receiving_region,milliseconds\neurope-west1,europe-west4,7\n", "m.csv"),
      IsOk());
  ASSERT_THAT(builder.AddRegionLocationsCsv("gcp_region,zone\neurope-west1,BE\n", "z.csv"), IsOk());
  auto model = std::make_shared<const PlacementFacts>(builder.BuildFacts());
  EXPECT_EQ(model->rtt.at("europe-west1").at("europe-west4").rtt, absl::Milliseconds(7));
  EXPECT_EQ(model->rtt.at("europe-west1").at("europe-west4").method, RttMethod::kDeclared);
  EXPECT_EQ(model->region_locations.at("europe-west1"), "BE");
  EXPECT_THAT(builder.AddStaticRttCsv("h\na,b,seven\n", "m.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "m.csv:2: milliseconds \"seven\" is not a non-negative number"));
  EXPECT_THAT(builder.AddRegionLocationsCsv("h\na\n", "z.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument, "z.csv:2: expected 2 cells, got 1"));
}

TEST(ModelBuilder, ZonePairRttIsTheMedianOfMeasuredEntriesElseOfZoneSeries) {
  ModelBuilder builder(kNow);
  builder.AddSamples(
      Parse("carbonroute_node_info{location=\"BE\",node=\"a1\",region=\"r1\",zone=\"z1\"} 1\n"
            "carbonroute_node_info{location=\"BE\",node=\"a2\",region=\"r1\",zone=\"z1\"} 1\n"
            "carbonroute_node_info{location=\"DE\",node=\"b1\",region=\"r2\",zone=\"z2\"} 1\n"
            "carbonroute_node_info{location=\"DE\",node=\"b2\",region=\"r2\",zone=\"z2\"} 1\n"
            "carbonroute_rtt_seconds{method=\"measured\",source=\"a1\",target=\"b1\"} 0.010\n"
            "carbonroute_rtt_seconds{method=\"measured\",source=\"a2\",target=\"b1\"} 0.030\n"
            "carbonroute_rtt_seconds{method=\"measured\",source=\"a2\",target=\"b2\"} 0.014\n"
            "carbonroute_rtt_seconds{method=\"declared\",source=\"a1\",target=\"b2\"} 0.500\n"
            // From two collectors (Prometheus tells them apart by instance).
            "carbonroute_zone_rtt_seconds{source_zone=\"z2\",target_zone=\"z3\"} 0.050\n"
            "carbonroute_zone_rtt_seconds{source_zone=\"z2\",target_zone=\"z3\"} 0.070\n"
            "carbonroute_zone_rtt_seconds{source_zone=\"z1\",target_zone=\"z2\"} 0.900\n"));
  auto model = std::make_shared<const PlacementFacts>(builder.BuildFacts());
  EXPECT_EQ(model->nodes.at("a1").zone, "z1");
  // 10, 14, 30 ms measured (the declared 500 ms is not a measurement): 14 ms,
  // and the per-node entries win over the zone series' 900 ms.
  EXPECT_EQ(model->zone_rtt.at("z1").at("z2"), absl::Milliseconds(14));
  EXPECT_EQ(model->zone_rtt.at("z2").at("z3"), absl::Milliseconds(60));
}

}  // namespace
}  // namespace carbonroute::model_sources
