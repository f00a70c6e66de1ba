#include "extender/extender_protocol.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test/testing/build_paths.h"
#include "test/testing/status_matchers.h"

namespace carbonroute::extender {

using placement::CompactScores;
using placement::LocationCarbon;
using placement::PlacementFacts;
using placement::PlacementModel;
using placement::ScoreCompact;
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

// nodeCacheCapable: true — the shape kube-scheduler sends (types_test.go TestCompatibility), with
// labels.
constexpr char kNamesArgs[] = R"({"Pod":{"metadata":{"name":"web-1","creationTimestamp":null,
  "labels":{"app":"web","delay_edge":"25"},"annotations":{"carbonroute.io/expected-runtime":"2h"}},
  "spec":{"containers":null},"status":{}},"Nodes":null,"NodeNames":["n-pl","n-fr","n-se"]})";

// nodeCacheCapable: false — full NodeList; region from the label, GreenCourier's annotation, or
// location label.
constexpr char kNodesArgs[] =
    R"({"Pod":{"metadata":{"name":"web-1","creationTimestamp":null},"spec":{"containers":null},"status":{}},
  "Nodes":{"metadata":{},"items":[
    {"metadata":{"name":"a","labels":{"topology.kubernetes.io/region":"europe-north1"},"creationTimestamp":null},"spec":{},"status":{}},
    {"metadata":{"name":"b","annotations":{"node.kubernetes.io/region":"europe-central2"}},"spec":{},"status":{}},
    {"metadata":{"name":"c","labels":{"carbonroute.io/location":"FR"}},"spec":{},"status":{}}]},
  "NodeNames":null})";

PlacementFacts Model() {
  PlacementFacts m;
  m.built_at = kNow;
  for (auto [location, grams] :
       std::initializer_list<std::pair<const char*, double>>{{"SE", 30}, {"FR", 60}, {"PL", 700}}) {
    LocationCarbon c;
    c.grams_per_kwh = grams;
    c.valid_to = kNow + absl::Minutes(30);
    m.carbon[location] = c;
  }
  m.nodes = {{"edge", {"FR", "europe-west9"}},
             {"n-se", {"SE", "europe-north1"}},
             {"n-fr", {"FR", "europe-west9"}},
             {"n-pl", {"PL", "europe-central2"}}};
  m.region_locations = {{"europe-north1", "SE"}, {"europe-central2", "PL"}, {"europe-west9", "FR"}};
  m.rtt["edge"]["n-se"] = {absl::Milliseconds(20), RttMethod::kMeasured, kNow};
  m.rtt["edge"]["n-pl"] = {absl::Milliseconds(31), RttMethod::kMeasured, kNow};
  return m;
}

// The extender and serve --shadow's Pod watch read a Pod's latency limits alike.
TEST(ReadDelayLabel, TheOriginAndTheLimitOrWhyNot) {
  EXPECT_EQ(*ReadDelayLabel("delay_edge", "25"),
            std::make_optional(std::make_pair(std::string("edge"), absl::Milliseconds(25))));
  EXPECT_EQ(*ReadDelayLabel("delay_eu-west", "2.5"),
            std::make_optional(std::make_pair(std::string("eu-west"), absl::Microseconds(2500))));
  EXPECT_EQ(*ReadDelayLabel("app", "web"), std::nullopt);
  EXPECT_EQ(ReadDelayLabel("delay_edge", "-1").status().message(),
            "Pod label delay_edge must be a number of milliseconds, got \"-1\"");
  EXPECT_EQ(ReadDelayLabel("delay_edge", "").status().message(),
            "Pod label delay_edge must be a number of milliseconds, got \"\"");
  EXPECT_EQ(ReadDelayLabel("delay_", "25").status().message(), "Pod label delay_ names no origin");
}

TEST(ParseExtenderArgs, NodeNamesModeWithDelayLabelAndRuntime) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(kNamesArgs);
  ASSERT_THAT(args, IsOk());
  EXPECT_TRUE(args->node_cache_capable);
  ASSERT_EQ(args->candidates.size(), 3u);
  EXPECT_EQ(args->candidates[1].name, "n-fr");
  EXPECT_EQ(args->workload.max_rtt.at("edge"), absl::Milliseconds(25));
  EXPECT_EQ(args->workload.expected_runtime, absl::Hours(2));
}

TEST(ParseExtenderArgs, NodeListModeReadsRegionSources) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(kNodesArgs);
  ASSERT_THAT(args, IsOk());
  EXPECT_FALSE(args->node_cache_capable);
  ASSERT_EQ(args->candidates.size(), 3u);
  EXPECT_EQ(args->candidates[0].region, "europe-north1");
  EXPECT_EQ(args->candidates[1].region, "europe-central2");
  EXPECT_EQ(args->candidates[2].location, "FR");
  EXPECT_EQ(args->raw_nodes.size(), 3u);
}

TEST(FilterReply, NodeNamesModeWithDelayLimit) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(kNamesArgs);
  ASSERT_THAT(args, IsOk());
  const CompactScores scored =
      ScoreCompact(PlacementModel(Model()), args->candidates, args->workload, {.now = kNow});
  const nlohmann::json reply = nlohmann::json::parse(FilterReply(*args, scored));
  EXPECT_TRUE(reply["Nodes"].is_null());
  EXPECT_EQ(reply["NodeNames"], nlohmann::json({"n-fr", "n-se"}));  // request order kept
  EXPECT_EQ(reply["FailedNodes"], nlohmann::json::object());
  EXPECT_THAT(reply["FailedAndUnresolvableNodes"]["n-pl"].get<std::string>(),
              HasSubstr("RTT from edge is 31.00 ms (measured), over the 25 ms limit"));
  EXPECT_EQ(reply["Error"], "");
}

TEST(FilterReply, NodeListModeEchoesFeasibleNodes) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(kNodesArgs);
  ASSERT_THAT(args, IsOk());
  args->workload.max_rtt["europe-north1"] =
      absl::Milliseconds(10);  // only a (same region, 5 ms) passes
  const CompactScores scored =
      ScoreCompact(PlacementModel(Model()), args->candidates, args->workload, {.now = kNow});
  const nlohmann::json reply = nlohmann::json::parse(FilterReply(*args, scored));
  ASSERT_EQ(reply["Nodes"]["items"].size(), 1u);
  EXPECT_EQ(reply["Nodes"]["items"][0]["metadata"]["name"], "a");
  EXPECT_EQ(reply["Nodes"]["items"][0]["metadata"]["labels"]["topology.kubernetes.io/region"],
            "europe-north1");
  EXPECT_TRUE(reply["NodeNames"].is_null());
  EXPECT_EQ(reply["FailedAndUnresolvableNodes"].size(), 2u);
}

TEST(PrioritizeReply, ScoresInRequestOrderWithinZeroToTen) {
  absl::StatusOr<ExtenderArgs> args =
      ParseExtenderArgs(R"({"Pod":{"metadata":{"name":"p"}},"NodeNames":["n-pl","n-fr","n-se"]})");
  ASSERT_THAT(args, IsOk());
  const CompactScores scored =
      ScoreCompact(PlacementModel(Model()), args->candidates, args->workload, {.now = kNow});
  const nlohmann::json reply = nlohmann::json::parse(PrioritizeReply(*args, scored));
  ASSERT_TRUE(reply.is_array());
  ASSERT_EQ(reply.size(), 3u);
  EXPECT_EQ(reply[0], nlohmann::json({{"Host", "n-pl"}, {"Score", 0}}));
  EXPECT_EQ(reply[1]["Host"], "n-fr");
  EXPECT_EQ(reply[2], nlohmann::json({{"Host", "n-se"}, {"Score", 10}}));
  for (const auto& entry : reply) {
    EXPECT_GE(entry["Score"].get<int>(), 0);
    EXPECT_LE(entry["Score"].get<int>(), 10);
  }
}

TEST(ParseExtenderArgs, EmptyNodeListsAreValid) {
  absl::StatusOr<ExtenderArgs> names = ParseExtenderArgs(R"({"Pod":{},"NodeNames":[]})");
  ASSERT_THAT(names, IsOk());
  EXPECT_TRUE(names->candidates.empty());
  EXPECT_EQ(nlohmann::json::parse(FilterReply(*names, CompactScores{}))["NodeNames"],
            nlohmann::json::array());
  EXPECT_EQ(PrioritizeReply(*names, CompactScores{}), "[]");
  absl::StatusOr<ExtenderArgs> nodes = ParseExtenderArgs(R"({"Pod":{},"Nodes":{"items":[]}})");
  ASSERT_THAT(nodes, IsOk());
  EXPECT_EQ(nlohmann::json::parse(FilterReply(*nodes, CompactScores{}))["Nodes"]["items"],
            nlohmann::json::array());
}

struct BadArgs {
  const char* body;
  const char* message;
};
class ParseExtenderArgsErrors : public ::testing::TestWithParam<BadArgs> {};

TEST_P(ParseExtenderArgsErrors, NameTheFieldAndValue) {
  EXPECT_THAT(ParseExtenderArgs(GetParam().body),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ParseExtenderArgsErrors,
    ::testing::Values(
        BadArgs{"{\"Pod\":", "request body is not valid JSON"},
        BadArgs{"[1,2]", "request body must be a JSON object"},
        BadArgs{R"({"NodeNames":["a"]})", "Pod is missing or not an object"},
        BadArgs{R"({"Pod":"p","NodeNames":["a"]})", "Pod is missing or not an object"},
        BadArgs{R"({"Pod":{}})", "neither NodeNames nor Nodes is set"},
        BadArgs{R"({"Pod":{},"NodeNames":"a"})", "NodeNames must be an array of strings"},
        BadArgs{R"({"Pod":{},"NodeNames":["a",7]})", "NodeNames[1] is not a string"},
        BadArgs{R"({"Pod":{},"Nodes":{"items":[{"metadata":{}}]}})",
                "Nodes.items[0].metadata.name is missing"},
        BadArgs{R"({"Pod":{},"Nodes":[1]})", "Nodes must be a NodeList with items"},
        BadArgs{R"({"Pod":{"metadata":{"labels":{"delay_edge":"fast"}}},"NodeNames":[]})",
                "Pod label delay_edge must be a number of milliseconds, got \"fast\""},
        BadArgs{R"({"Pod":{"metadata":{"labels":{"delay_edge":25}}},"NodeNames":[]})",
                "Pod label delay_edge must be a number of milliseconds, got 25"},
        BadArgs{
            R"({"Pod":{"metadata":{"annotations":{"carbonroute.io/expected-runtime":"soon"}}},"NodeNames":[]})",
            "must be a duration such as \"2h\", got \"soon\""},
        BadArgs{R"({"Pod":{"metadata":{"labels":[]}},"NodeNames":[]})",
                "Pod.metadata.labels is not an object"}));

TEST(AppendJsonString, EscapesWhatJsonRequires) {
  std::string out;
  AppendJsonString(out,
                   "a\"b\\c\nd\x01"
                   "e/é");
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\nd\\u0001e/é\"");
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(),
            "a\"b\\c\nd\x01"
            "e/é");
}

TEST(FilterErrorReply, SetsOnlyError) {
  const nlohmann::json reply = nlohmann::json::parse(FilterErrorReply("bad \"input\""));
  EXPECT_EQ(reply["Error"], "bad \"input\"");
  EXPECT_TRUE(reply["NodeNames"].is_null());
  EXPECT_TRUE(reply["FailedNodes"].is_null());
}

}  // namespace
// docs/scheduler-lite.md's example request is one the extender reads, and its example answer
// has the reply's fields.
TEST(ParseExtenderArgs, TheDocumentedExampleIsAValidRequest) {
  std::ifstream doc(std::string(CARBONROUTE_SOURCE_DIR) + "/docs/scheduler-lite.md");
  std::vector<std::string> blocks;
  std::string line, block;
  bool in_json = false;
  while (std::getline(doc, line)) {
    if (line == "```json") {
      in_json = true;
      block.clear();
    } else if (in_json && line == "```") {
      in_json = false;
      blocks.push_back(block);
    } else if (in_json) {
      block += line + "\n";
    }
  }
  ASSERT_GE(blocks.size(), 2u);
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(blocks[0]);
  ASSERT_THAT(args, testing::IsOk()) << blocks[0];
  ASSERT_EQ(args->candidates.size(), 3u);
  EXPECT_EQ(args->workload.max_rtt.at("edge-gw-1"), absl::Milliseconds(25));
  const nlohmann::json reply = nlohmann::json::parse(blocks[1]);
  for (const char* field : {"NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error"}) {
    EXPECT_TRUE(reply.contains(field)) << field;
  }
}

}  // namespace carbonroute::extender
