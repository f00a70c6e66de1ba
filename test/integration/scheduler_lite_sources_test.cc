// Two collectors (node-a in europe-west1 on BE, node-b in europe-west4 on NL),
// each exporting its RTT row to the other, and a real Prometheus scraping both:
// `scheduler-lite rank --prometheus` must give the same answer as
// `scheduler-lite rank --metrics A --metrics B`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/prometheus_process.h"
#include "test/testing/shell.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

// `probe_peer`: extra keys of the peer's entry (e.g. its address) and the
// rtt.probe settings; empty: the peer's RTT is only declared.
std::string CollectorYaml(const std::string& dir, const std::string& node,
                          const std::string& region, const std::string& location,
                          const std::string& peer, const std::string& peer_region,
                          const std::string& probe_peer = "", const std::string& probe = "") {
  return absl::StrCat("listen_address: 127.0.0.1:0\ndatabase: ", dir, "/", node, ".sqlite\n",
                      "node: {name: ", node, ", region: ", region, ", location: ", location, "}\n",
                      "providers: [{type: replay, locations: [BE, NL, FR, DE, PL]}]\n",
                      "rtt: {static_matrix: gcp-inter-region-latency-ms.csv, ",
                      probe.empty() ? "" : absl::StrCat("probe: ", probe, ", "),
                      "peers: [{name: ", peer, ", region: ", peer_region, probe_peer, "}]}\n");
}

std::string RunCommand(const std::string& command, int* code) {
  testing::ShellRun run = testing::Shell(command);
  *code = run.exit_code;
  return run.output;
}

TEST(SchedulerLiteSources, PrometheusAndDirectScrapesGiveTheSameRanking) {
  testing::ScopedTempDir temp_dir;  // two_collectors
  const std::string& root = temp_dir.path();
  std::filesystem::create_directories(root + "/a");
  std::filesystem::create_directories(root + "/b");
  testing::CollectorProcess a = testing::StartCollector(
      root + "/a", CollectorYaml(root, "node-a", "europe-west1", "BE", "node-b", "europe-west4"));
  testing::CollectorProcess b = testing::StartCollector(
      root + "/b", CollectorYaml(root, "node-b", "europe-west4", "NL", "node-a", "europe-west1"));
  ASSERT_GT(a.port, 0) << a.process->Log();
  ASSERT_GT(b.port, 0) << b.process->Log();
  ASSERT_THAT(testing::HttpGet(a.port, "/metrics"),
              ::testing::HasSubstr("carbonroute_rtt_seconds{method=\"declared\",source=\"node-a\","
                                   "target=\"node-b\"} 0.007"));

  std::unique_ptr<testing::Subprocess> prometheus_process =
      testing::StartPrometheus(root, 0, {{"carbonroute", a.port, "", {b.port}}});
  testing::Subprocess& prometheus = *prometheus_process;
  const int prometheus_port = testing::PrometheusPort(prometheus);
  ASSERT_GT(prometheus_port, 0) << prometheus.Log();
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        const std::string body =
            testing::HttpGet(prometheus_port, "/api/v1/query?query=count(carbonroute_rtt_seconds)");
        return body.find("\"2\"]") != std::string::npos;
      },
      absl::Seconds(60)))
      << prometheus.Log();

  const std::string binary = CARBONROUTE_SCHEDULER_LITE_BINARY;
  const std::string flags =
      absl::StrCat(" --candidates nodes --from node-a --max-rtt-ms 10 --format json --data-dir ",
                   CARBONROUTE_SOURCE_DIR, "/data");
  int direct_code = 0, prometheus_code = 0;
  const std::string via_metrics =
      RunCommand(absl::StrCat(binary, " rank --metrics http://127.0.0.1:", a.port,
                              "/metrics --metrics http://127.0.0.1:", b.port, "/metrics", flags),
                 &direct_code);
  const std::string via_prometheus = RunCommand(
      absl::StrCat(binary, " rank --prometheus http://127.0.0.1:", prometheus_port, flags),
      &prometheus_code);
  EXPECT_EQ(direct_code, 0) << via_metrics;
  EXPECT_EQ(prometheus_code, 0) << via_prometheus;
  const nlohmann::json metrics_json = nlohmann::json::parse(via_metrics);
  const nlohmann::json prometheus_json = nlohmann::json::parse(via_prometheus);
  EXPECT_EQ(metrics_json, prometheus_json);
  // Both nodes are within 10 ms of node-a (itself: 0; node-b: 7 ms declared), ranked by carbon.
  ASSERT_EQ(metrics_json["candidates"].size(), 2u);
  EXPECT_TRUE(metrics_json["candidates"][0]["feasible"].get<bool>());
  EXPECT_TRUE(metrics_json["candidates"][1]["feasible"].get<bool>());
  EXPECT_EQ(prometheus.Terminate(), 0);
}

// node-a probes node-b (a TCP connect to node-b's own /metrics port on
// loopback, so no ICMP privilege is needed). Its measured RTT, tens of
// microseconds (milliseconds on a loaded machine), must reach scheduler-lite
// and take precedence over the 253 ms the static matrix declares between
// their regions (node-b is put in asia-east1): under a 100 ms limit node-b is
// feasible only through the measurement, whatever the machine's load.
TEST(SchedulerLiteSources, MeasuredRttsReachTheScoringAndOutrankDeclaredOnes) {
  testing::ScopedTempDir temp_dir;  // measured_rtt
  const std::string& root = temp_dir.path();
  std::filesystem::create_directories(root + "/a");
  std::filesystem::create_directories(root + "/b");
  testing::CollectorProcess b = testing::StartCollector(
      root + "/b", CollectorYaml(root, "node-b", "asia-east1", "NL", "node-a", "europe-west1"));
  ASSERT_GT(b.port, 0) << b.process->Log();
  testing::CollectorProcess a = testing::StartCollector(
      root + "/a",
      CollectorYaml(root, "node-a", "europe-west1", "BE", "node-b", "asia-east1",
                    absl::StrCat(", address: 127.0.0.1, protocol: tcp, port: ", b.port),
                    "{interval: 100ms, timeout: 500ms}"));
  ASSERT_GT(a.port, 0) << a.process->Log();
  const std::string measured =
      "carbonroute_rtt_seconds{method=\"measured\",source=\"node-a\",target=\"node-b\"}";
  ASSERT_TRUE(testing::WaitFor(
      [&] { return testing::HttpGet(a.port, "/metrics").find(measured) != std::string::npos; },
      absl::Seconds(20)))
      << testing::HttpGet(a.port, "/metrics");
  EXPECT_THAT(testing::HttpGet(a.port, "/metrics"),
              ::testing::HasSubstr("carbonroute_rtt_seconds{method=\"declared\",source=\"node-a\","
                                   "target=\"node-b\"} 0.253"));

  int code = 0;
  const std::string ranking = RunCommand(
      absl::StrCat(
          CARBONROUTE_SCHEDULER_LITE_BINARY, " rank --metrics http://127.0.0.1:", a.port,
          "/metrics --metrics http://127.0.0.1:", b.port,
          "/metrics --candidates nodes --from node-a --max-rtt-ms 100 --format json --data-dir ",
          CARBONROUTE_SOURCE_DIR, "/data"),
      &code);
  ASSERT_EQ(code, 0) << ranking;
  const nlohmann::json json = nlohmann::json::parse(ranking);
  bool found = false;
  for (const nlohmann::json& candidate : json["candidates"]) {
    if (candidate["name"] != "node-b") continue;
    found = true;
    EXPECT_TRUE(candidate["feasible"].get<bool>()) << candidate.dump();
  }
  EXPECT_TRUE(found) << ranking;
}

TEST(SchedulerLiteServe, AnswersTheExtenderAndStopsCleanlyOnSigterm) {
  testing::ScopedTempDir temp_dir;  // serve
  const std::string& root = temp_dir.path();
  testing::CollectorProcess collector =
      testing::StartCollector(root, "listen_address: 127.0.0.1:0\ndatabase: " + root +
                                        "/c.sqlite\nnode: {name: node-a, location: SE-SE3}\n"
                                        "providers: [{type: replay, locations: [SE-SE3, PL]}]\n");
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  testing::Subprocess serve(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "serve", "--listen", "127.0.0.1:0", "--metrics",
       absl::StrCat("http://127.0.0.1:", collector.port, "/metrics")},
      root + "/serve.log");
  const int port = testing::LoggedPort(serve, "serving the kube-scheduler extender on ");
  ASSERT_GT(port, 0) << serve.Log();
  ASSERT_TRUE(testing::WaitFor([&] { return testing::IsHealthy(port); }, absl::Seconds(30)))
      << serve.Log();
  int code = 0;
  const std::string reply = RunCommand(
      absl::StrCat(
          "curl -s -X POST -H 'Content-Type: application/json' --data '",
          R"({"Pod":{"metadata":{"name":"p"}},"Nodes":null,"NodeNames":["node-a","node-x"]})",
          "' http://127.0.0.1:", port, "/prioritize"),
      &code);
  EXPECT_EQ(reply, R"([{"Host":"node-a","Score":10},{"Host":"node-x","Score":0}])");
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
}

TEST(SchedulerLiteSources, ExplainingALocationNamesTheRegionsAndNodesItStandsFor) {
  testing::ScopedTempDir temp_dir;
  const std::string& root = temp_dir.path();
  testing::CollectorProcess paris = testing::StartCollector(
      root, CollectorYaml(root, "node-paris", "europe-west9", "FR", "node-b", "europe-west4"));
  ASSERT_GT(paris.port, 0) << paris.process->Log();
  int code = 0;
  const std::string out = RunCommand(
      absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY,
                   " explain FR --metrics http://127.0.0.1:", paris.port, "/metrics 2>&1"),
      &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_THAT(out, ::testing::StartsWith("FR (location)\n"));
  // The cloud region table's regions in France: AWS, Google Cloud, Azure, Oracle Cloud.
  EXPECT_THAT(out, ::testing::HasSubstr("  regions:  eu-marseille-1, eu-paris-1, eu-west-3, "
                                        "europe-west9, francecentral, francesouth\n"));
  EXPECT_THAT(out, ::testing::HasSubstr("  nodes:    node-paris\n"));
  EXPECT_THAT(out, ::testing::Not(::testing::HasSubstr("region:   unknown")));
  EXPECT_EQ(paris.process->Terminate(), 0);
}

}  // namespace
}  // namespace carbonroute
