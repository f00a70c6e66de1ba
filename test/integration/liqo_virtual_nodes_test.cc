// GreenCourier's set-up (thandayuthapani/GreenCourier): a management cluster whose
// candidate Nodes include Liqo virtual nodes, one per remote cluster, each given its
// region by hand with the node.kubernetes.io/region annotation, running no collector.
// The real binaries: three latency-role collectors (the ordinary Nodes), a carbon role
// polling every Node's grid location (replay, `locations: nodes`, Nodes discovered
// through the fake API), and `scheduler-lite serve` watching the Nodes, asked as
// kube-scheduler asks with nodeCacheCapable: true (Node names only).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/curl_http_client.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_kube_api_server.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

// A Node as the API returns it; a virtual one as Liqo's virtual-kubelet creates it
// (labels, taint, the virtual-kubelet pod's address), its region as an annotation.
std::string NodeJson(const std::string& name, const std::string& region, bool virtual_node) {
  Json node = {{"apiVersion", "v1"}, {"kind", "Node"}};
  node["metadata"] = {{"name", name}, {"labels", Json::object()}};
  if (virtual_node) {
    node["metadata"]["labels"] = {{"liqo.io/type", "virtual-node"},
                                  {"type", "virtual-kubelet"},
                                  {"liqo.io/remote-cluster-id", name}};
    node["metadata"]["annotations"] = {{"node.kubernetes.io/region", region}};
    node["spec"]["taints"] = Json::array({{{"key", "virtual-node.liqo.io/not-allowed"},
                                           {"value", "true"},
                                           {"effect", "NoExecute"}}});
  } else {
    node["metadata"]["labels"]["topology.kubernetes.io/region"] = region;
  }
  node["status"]["addresses"] = Json::array(
      {{{"type", "InternalIP"}, {"address", virtual_node ? "10.244.0.17" : "127.0.0.1"}}});
  node["status"]["conditions"] = Json::array({{{"type", "Ready"}, {"status", "True"}}});
  return node.dump();
}

// The carbon series' value per location on a collector's /metrics.
std::map<std::string, double> Intensities(int port) {
  std::map<std::string, double> values;
  for (absl::string_view line : absl::StrSplit(testing::HttpGet(port, "/metrics"), '\n')) {
    if (!absl::StartsWith(line, "carbonroute_carbon_intensity_grams_per_kilowatt_hour{")) continue;
    const std::size_t at = line.find("location=\"");
    const std::size_t end = line.find('"', at + 10);
    double value = 0;
    if (at == absl::string_view::npos ||
        !absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) {
      continue;
    }
    values[std::string(line.substr(at + 10, end - at - 10))] = value;
  }
  return values;
}

TEST(LiqoVirtualNodes, GreenCouriersFlowRanksVirtualNodesByTheirRegionsCarbonAndDeclaredRtt) {
  testing::ScopedTempDir temp_dir;
  const std::string& dir = temp_dir.path();
  testing::FakeKubeApiServer api;
  std::vector<std::string> nodes = {NodeJson("node-a", "europe-west1", false),
                                    NodeJson("node-b", "europe-west1", false),
                                    NodeJson("node-c", "europe-west1", false),
                                    NodeJson("liqo-frankfurt", "europe-west3", true),
                                    NodeJson("liqo-finland", "europe-north1", true),
                                    NodeJson("liqo-iowa", "us-central1", true)};
  api.SetNodes(nodes, "100");

  std::vector<std::string> metrics;
  std::vector<testing::CollectorProcess> latency;
  for (const char* name : {"node-a", "node-b", "node-c"}) {
    latency.push_back(testing::StartCollector(
        dir,
        absl::StrCat("listen_address: 127.0.0.1:0\ndatabase: \":memory:\"\nnode: {name: ", name,
                     ", region: europe-west1, location: BE}\nproviders: []\n"),
        absl::StrCat(name, ".log")));
    ASSERT_GT(latency.back().port, 0) << latency.back().process->Log();
    metrics.push_back(absl::StrCat("--metrics=http://127.0.0.1:", latency.back().port, "/metrics"));
  }
  testing::CollectorProcess carbon = testing::StartCollector(dir,
                                                             absl::StrCat(R"yaml(
listen_address: 127.0.0.1:0
database: ":memory:"
node: {name: carbon-0}
poll: {interval: 1s, grace: 3s}
rtt:
  discovery:
    kubernetes: {api_url: ")yaml",
                                                                          api.base_url(), R"yaml("}
  peer_selection: {mode: none}
providers:
  - {type: replay, locations: nodes}
)yaml"),
                                                             "carbon.log");
  ASSERT_GT(carbon.port, 0) << carbon.process->Log();
  metrics.push_back(absl::StrCat("--metrics=http://127.0.0.1:", carbon.port, "/metrics"));
  // The carbon role's `locations: nodes` includes the virtual nodes' regions' zones.
  std::map<std::string, double> intensity;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        intensity = Intensities(carbon.port);
        return intensity.contains("BE") && intensity.contains("DE") && intensity.contains("FI") &&
               intensity.contains("US-MIDW-MISO");
      },
      absl::Seconds(30)))
      << carbon.process->Log();

  std::vector<std::string> argv = {CARBONROUTE_SCHEDULER_LITE_BINARY,
                                   "serve",
                                   "--web.listen-address",
                                   "127.0.0.1:0",
                                   "--refresh",
                                   "1s",
                                   "--kube-api-url",
                                   api.base_url()};
  argv.insert(argv.end(), metrics.begin(), metrics.end());
  testing::Subprocess serve(argv, dir + "/serve.log");
  const int port = testing::LoggedPort(serve, "serving the kube-scheduler extender on ");
  ASSERT_GT(port, 0) << serve.Log();
  absl::StatusOr<std::unique_ptr<net::CurlHttpClient>> http =
      net::CurlHttpClient::Create("liqo-test");
  ASSERT_TRUE(http.ok());
  auto ask = [&](const std::string& verb, const std::string& labels,
                 const std::vector<std::string>& names) {
    net::HttpRequest request;
    request.method = "POST";
    request.url = absl::StrCat("http://127.0.0.1:", port, "/", verb);
    request.headers = {{"Content-Type", "application/json"}};
    request.body = Json{
        {"Pod", {{"metadata", {{"name", "fn"}, {"labels", Json::parse(labels)}}}}},
        {"Nodes", nullptr},
        {"NodeNames",
         names}}.dump();
    absl::StatusOr<net::HttpResponse> response = (*http)->Send(request);
    return response.ok() && response->status == 200 ? Json::parse(response->body, nullptr, false)
                                                    : Json();
  };
  const std::vector<std::string> names = {"node-a",         "node-b",       "node-c",
                                          "liqo-frankfurt", "liqo-finland", "liqo-iowa"};
  // /prioritize: of the three virtual nodes, the one in the cleanest region (the replayed
  // hour's) scores highest (before serve knows them, they score 0: no carbon data).
  const std::map<std::string, std::string> location_of = {
      {"liqo-frankfurt", "DE"}, {"liqo-finland", "FI"}, {"liqo-iowa", "US-MIDW-MISO"}};
  std::string cleanest;
  for (const auto& [name, location] : location_of) {
    if (cleanest.empty() || intensity[location] < intensity[location_of.at(cleanest)]) {
      cleanest = name;
    }
  }
  std::map<std::string, int> score;
  Json priorities;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        priorities = ask("prioritize", "{}", names);
        score.clear();
        for (const Json& host : priorities) score[host["Host"]] = host["Score"];
        if (score.size() != names.size() || score[cleanest] == 0) return false;
        for (const auto& [name, location] : location_of) {
          if (score[name] > score[cleanest]) return false;
        }
        return true;
      },
      absl::Seconds(30)))
      << priorities.dump() << "\n"
      << serve.Log();
  for (const auto& [name, location] : location_of) {
    if (name != cleanest && intensity[location] > intensity[location_of.at(cleanest)]) {
      EXPECT_LT(score[name], score[cleanest]) << name;
    }
  }
  RecordProperty("prioritize", priorities.dump());
  std::cerr << "intensities: " << Json(intensity).dump() << "\n/prioritize: " << priorities.dump()
            << "\n";

  // A limit of 30 ms from node-a: the declared matrix has europe-west1 → europe-west3 7 ms
  // (passes), → europe-north1 31 ms and → us-central1 103 ms (fail, saying "declared").
  Json filtered = ask("filter", R"({"delay_node-a": "30"})", names);
  std::cerr << "/filter: " << filtered.dump() << "\n";
  ASSERT_TRUE(filtered.is_object()) << serve.Log();
  EXPECT_EQ(filtered["NodeNames"],
            Json::parse(R"(["node-a", "node-b", "node-c", "liqo-frankfurt"])"));
  EXPECT_THAT(filtered["FailedAndUnresolvableNodes"]["liqo-finland"].get<std::string>(),
              HasSubstr("31"));
  EXPECT_THAT(filtered["FailedAndUnresolvableNodes"]["liqo-finland"].get<std::string>(),
              HasSubstr("declared"));
  EXPECT_THAT(filtered["FailedAndUnresolvableNodes"]["liqo-iowa"].get<std::string>(),
              HasSubstr("103"));

  // A virtual node peered later is a candidate within one refresh.
  nodes.push_back(NodeJson("liqo-paris", "europe-west9", true));
  api.SetNodes(nodes, "101");
  api.BroadcastEvent(absl::StrCat(R"({"type":"ADDED","object":)", nodes.back(), "}"));
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        filtered = ask("filter", R"({"delay_node-a": "30"})", {"liqo-paris"});
        return filtered.is_object() && filtered["NodeNames"] == Json::parse(R"(["liqo-paris"])");
      },
      absl::Seconds(30)))
      << filtered.dump() << "\n"
      << serve.Log();
  EXPECT_THAT(serve.Log(), HasSubstr("Nodes: watched on"));
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
}

}  // namespace
}  // namespace carbonroute
