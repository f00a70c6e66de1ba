// `scheduler-lite rank` against a fake collector's /metrics.
#include "scheduler-lite/rank_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "net/curl_http_client.h"
#include "output/ranking_output.h"
#include "test/testing/fake_clock.h"
#include "test/testing/fake_provider_server.h"

namespace carbonroute::scheduler_lite {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kPage[] =
    "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"average\","
    "estimated=\"false\",location=\"DE\",provider=\"em\"} 400.57000000000005\n"
    "carbonroute_carbon_intensity_grams_per_kilowatt_hour{emissions_type=\"marginal\","
    "estimated=\"false\",location=\"CAISO_NORTH\",provider=\"wt\"} 300\n"
    "carbonroute_node_info{location=\"DE\",node=\"node-a\",region=\"europe-west3\","
    "zone=\"europe-west3-a\"} 1\n";

class RankCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    http_ = *net::CurlHttpClient::Create("test");
    collector_.Route("/metrics", [](const testing::FakeRequest&) {
      return testing::FakeResponse{200, kPage, {}};
    });
    request_.sources.metrics_urls = {collector_.base_url() + "/metrics"};
  }
  int Run() {
    out_.str("");
    err_.str("");
    return RankCommand(request_, *http_, clock_, out_, err_);
  }

  testing::FakeProviderServer collector_;
  std::unique_ptr<net::CurlHttpClient> http_;
  testing::FakeClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  RankRequest request_;
  std::ostringstream out_, err_;
};

TEST_F(RankCommandTest, AMarginalPreferenceSaysWhereAverageHadToDo) {
  request_.sources.emissions_type = EmissionsType::kMarginal;
  EXPECT_EQ(Run(), 0) << err_.str();
  EXPECT_THAT(err_.str(), HasSubstr("no marginal signal for DE: scored on average emissions"));
  EXPECT_THAT(err_.str(), Not(HasSubstr("CAISO_NORTH")));
}

TEST_F(RankCommandTest, UnknownLocationsAreUsageErrors) {
  request_.only = {"XX"};
  EXPECT_EQ(Run(), 2);
  EXPECT_THAT(err_.str(), HasSubstr("unknown location \"XX\"; known: CAISO_NORTH, DE (2)"));
  request_.only = {"de"};
  EXPECT_EQ(Run(), 0);
  EXPECT_THAT(err_.str(), HasSubstr("\"de\" taken as location \"DE\""));
}

// explain takes --format json as rank does (the README's "explain NAME [same options]");
// numbers are written with at most 15 significant digits (400.57000000000005 → 400.57).
TEST_F(RankCommandTest, ExplainAnswersInJsonAndNumbersCarryNoArithmeticNoise) {
  request_.format = "json";
  EXPECT_EQ(ExplainCommand(request_, "de", *http_, clock_, out_, err_), 0) << err_.str();
  const nlohmann::json explained = nlohmann::json::parse(out_.str());
  EXPECT_EQ(explained["name"], "DE");
  EXPECT_EQ(explained["kind"], "location");
  EXPECT_EQ(explained["rank"], 2);
  EXPECT_EQ(explained["of"], 2);
  EXPECT_EQ(explained["grams_per_kwh"].dump(), "400.57");
  out_.str("");
  EXPECT_EQ(Run(), 0);
  EXPECT_THAT(out_.str(), HasSubstr("\"grams_per_kwh\": 400.57,"));
}

// --candidates auto ranks nodes once --from is given: said, not silent.
TEST_F(RankCommandTest, AutoSaysWhenFromMakesItRankNodes) {
  EXPECT_EQ(Run(), 0) << err_.str();
  EXPECT_THAT(err_.str(), Not(HasSubstr("ranking nodes")));
  request_.from = "node-a";
  EXPECT_EQ(Run(), 0) << err_.str();
  EXPECT_THAT(err_.str(), HasSubstr("note: ranking nodes (--candidates auto with --from)"));
  EXPECT_THAT(out_.str(), HasSubstr("node-a"));
  request_.candidates = "locations";
  EXPECT_EQ(Run(), 0) << err_.str();
  EXPECT_THAT(err_.str(), Not(HasSubstr("ranking nodes")));
}

// What the model cannot honour is said at once (exit 2), not ranked into an empty table.
TEST_F(RankCommandTest, AnOriginTheModelCannotUseIsAUsageError) {
  request_.from = "nosuchnode";
  request_.max_rtt = absl::Milliseconds(50);
  EXPECT_EQ(Run(), 2) << out_.str();
  EXPECT_THAT(err_.str(), HasSubstr("--from: \"nosuchnode\" is not a node, region or location"));
  EXPECT_THAT(err_.str(), HasSubstr("nodes: node-a (1)"));
  EXPECT_EQ(out_.str(), "");
  // A grid location has no RTT: a limit on locations could never be met.
  request_.from = "node-a";
  request_.candidates = "locations";
  EXPECT_EQ(Run(), 2) << out_.str();
  EXPECT_THAT(err_.str(), HasSubstr("--max-rtt-ms: a grid location has no RTT"));
  // --locations names locations: ranked as locations from a node, not taken for unknown nodes.
  request_.candidates = "auto";
  request_.max_rtt.reset();
  request_.only = {"DE"};
  EXPECT_EQ(Run(), 0) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("DE"));
  EXPECT_THAT(err_.str(), Not(HasSubstr("unknown node")));
}

TEST(RankingTable, ALongTailOfExcludedCandidatesIsSummedUpInOneLine) {
  std::vector<placement::ScoredCandidate> scored(13);
  for (std::size_t i = 0; i < scored.size(); ++i) {
    scored[i].name = absl::StrCat("region-", i);
    scored[i].reasons = {"no RTT"};
  }
  scored[0].feasible = true;
  const std::string table = RankingTable(scored, 10);
  EXPECT_THAT(table, HasSubstr("excluded: region-10 (no RTT)"));
  EXPECT_THAT(table, Not(HasSubstr("excluded: region-11 ")));
  EXPECT_THAT(table, HasSubstr("excluded: 2 more (--format json lists every one"));
  EXPECT_THAT(RankingTable(scored), HasSubstr("excluded: region-12 (no RTT)"));  // all
  EXPECT_THAT(RankingTable(scored), Not(HasSubstr("more")));
}

}  // namespace
}  // namespace carbonroute::scheduler_lite
