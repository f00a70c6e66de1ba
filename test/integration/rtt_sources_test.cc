// --rtt-source: RTT from exporters a cluster already runs, read through a real
// Prometheus (Debian's) that scrapes one small exporter serving each exporter's
// exposition shape (bloomberg/goldpinger's histogram by host IP, bonavadeur/monlat's
// untyped milliseconds by Node name, SuperQ/smokeping_prober's histogram by target IP
// with no source label) and kube-state-metrics' kube_node_info / kube_pod_info for
// the joins to Node names. The real `scheduler-lite rank` and `explain` honour a
// latency limit on each source's RTTs, name the source in their reasons, and a
// Goldpinger pair whose pings time out is never within a limit.
#include "model_sources/rtt_sources.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_provider_server.h"
#include "test/testing/prometheus_process.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

constexpr double kBuckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

// A histogram's series for one observation per second of `seconds`, since `elapsed`.
std::string Histogram(const std::string& name, const std::string& labels, double seconds,
                      double elapsed) {
  std::string text;
  for (double le : kBuckets) {
    absl::StrAppend(&text, name, "_bucket{", labels, ",le=\"", le, "\"} ",
                    seconds <= le ? elapsed : 0.0, "\n");
  }
  absl::StrAppend(&text, name, "_bucket{", labels, ",le=\"+Inf\"} ", elapsed, "\n", name, "_sum{",
                  labels, "} ", elapsed * seconds, "\n", name, "_count{", labels, "} ", elapsed,
                  "\n");
  return text;
}

// What the scrape finds: four Nodes (carbonroute's node_info: the candidates), the
// three exporters' series from node-a, and kube-state-metrics' (once `with_ksm`).
std::string Exposition(absl::Time start, bool with_ksm) {
  const double t = 1 + absl::ToDoubleSeconds(absl::Now() - start);
  std::string text = "# TYPE carbonroute_node_info gauge\n";
  for (const char* node : {"node-a", "node-b", "node-c", "node-d"}) {
    absl::StrAppend(&text, "carbonroute_node_info{node=\"", node,
                    "\",region=\"europe-west1\",location=\"BE\"} 1\n");
  }
  absl::StrAppend(&text,
                  "carbonroute_carbon_intensity_grams_per_kilowatt_hour{location=\"BE\","
                  "provider=\"static\",emissions_type=\"average\",estimated=\"false\"} 150\n");
  // Goldpinger on node-a: /ping to node-b 12 ms, node-c 40 ms; node-d times out (300 ms).
  absl::StrAppend(&text, "# TYPE goldpinger_peers_response_time_s histogram\n");
  const std::pair<const char*, double> goldpinger[] = {
      {"10.0.0.2", 0.012}, {"10.0.0.3", 0.040}, {"10.0.0.4", 0.300}};
  for (const auto& [ip, seconds] : goldpinger) {
    absl::StrAppend(&text,
                    Histogram("goldpinger_peers_response_time_s",
                              absl::StrCat("goldpinger_instance=\"node-a\",call_type=\"ping\","
                                           "host_ip=\"",
                                           ip, "\",pod_ip=\"10.1.", ip + 7, "\""),
                              seconds, t));
  }
  // monlat: the latest ping, milliseconds, no TYPE line.
  absl::StrAppend(&text, "latency_between_nodes{from=\"node-a\",to=\"node-b\"} 9\n",
                  "latency_between_nodes{from=\"node-a\",to=\"node-c\"} 45\n");
  // smokeping_prober scraped on node-a: targets by IP, no source label.
  absl::StrAppend(&text, "# TYPE smokeping_response_duration_seconds histogram\n");
  const std::pair<const char*, double> smokeping[] = {{"10.0.0.2", 0.015}, {"10.0.0.3", 0.050}};
  for (const auto& [ip, seconds] : smokeping) {
    absl::StrAppend(
        &text, Histogram("smokeping_response_duration_seconds",
                         absl::StrCat("host=\"", ip, "\",ip=\"", ip, "\",source=\"\",tos=\"0\""),
                         seconds, t));
  }
  if (with_ksm) {
    absl::StrAppend(&text, "# TYPE kube_node_info gauge\n");
    for (int i = 1; i <= 4; ++i) {
      absl::StrAppend(&text, "kube_node_info{node=\"node-", std::string(1, 'a' + i - 1),
                      "\",internal_ip=\"10.0.0.", i, "\"} 1\n");
    }
    // The smokeping_prober Pod (scraped at 127.0.0.1) runs on node-a.
    absl::StrAppend(&text,
                    "kube_pod_info{namespace=\"monitoring\",pod=\"smokeping-prober-x\","
                    "pod_ip=\"127.0.0.1\",host_ip=\"10.0.0.1\",node=\"node-a\"} 1\n");
  }
  return text;
}

struct Ranked {
  bool feasible = false;
  std::string reasons;
};

std::map<std::string, Ranked> Rank(int prometheus_port, const std::string& source,
                                   std::string* warnings = nullptr) {
  const testing::ShellRun run = testing::Shell(absl::StrCat(
      CARBONROUTE_SCHEDULER_LITE_BINARY, " rank --prometheus http://127.0.0.1:", prometheus_port,
      " --rtt-source ", source, " --candidates nodes --from node-a --max-rtt-ms 25",
      " --format json --data-dir ", CARBONROUTE_SOURCE_DIR, "/data 2>",
      warnings ? "&1" : "/dev/null"));
  if (warnings != nullptr) *warnings = run.output;
  std::map<std::string, Ranked> ranked;
  const Json parsed = Json::parse(
      run.output.substr(std::min(run.output.find('{'), run.output.size())), nullptr, false);
  if (parsed.is_discarded()) return ranked;
  for (const Json& candidate : parsed["candidates"]) {
    Ranked& r = ranked[candidate["name"].get<std::string>()];
    r.feasible = candidate["feasible"].get<bool>();
    for (const Json& reason : candidate["reasons"]) r.reasons += reason.get<std::string>() + "; ";
  }
  return ranked;
}

TEST(RttSources, EachExportersRttsHonourALimitAndAFailingGoldpingerPairNeverPasses) {
  ASSERT_TRUE(std::filesystem::exists(testing::kPrometheusBinary))
      << "install Debian's prometheus package (./scripts/test does)";
  testing::ScopedTempDir temp_dir;
  const absl::Time start = absl::Now();
  std::atomic<bool> with_ksm{false};
  testing::FakeProviderServer exporter;
  exporter.Route("/metrics", [&](const testing::FakeRequest&) {
    return testing::FakeResponse{200, Exposition(start, with_ksm), {}};
  });
  std::unique_ptr<testing::Subprocess> prometheus =
      testing::StartPrometheus(temp_dir.path(), 0, {{"exporters", exporter.port()}});
  const int port = testing::PrometheusPort(*prometheus);
  ASSERT_GT(port, 0) << prometheus->Log();
  ASSERT_FALSE(testing::WaitForSeries(port, "latency_between_nodes", 2).empty());

  // Without kube-state-metrics the IP-named sources name no Node, and say why.
  std::string warnings;
  std::map<std::string, Ranked> ranked = Rank(port, "goldpinger", &warnings);
  EXPECT_THAT(warnings, HasSubstr("has no kube_node_info"));

  with_ksm = true;
  using model_sources::PromQlFor;
  ASSERT_EQ(testing::WaitForSeries(port, PromQlFor(RttExporter::kGoldpinger), 3).size(), 3u);
  ASSERT_EQ(testing::WaitForSeries(port, PromQlFor(RttExporter::kSmokepingProber), 2).size(), 2u);

  ranked = Rank(port, "goldpinger");
  EXPECT_TRUE(ranked["node-b"].feasible) << ranked["node-b"].reasons;  // 12 ms
  EXPECT_FALSE(ranked["node-c"].feasible);                             // 40 ms
  EXPECT_THAT(ranked["node-c"].reasons, HasSubstr("measured by goldpinger"));
  // Timed-out pings are not a 300 ms link, nor does the same-region default stand in.
  EXPECT_FALSE(ranked["node-d"].feasible);
  EXPECT_THAT(ranked["node-d"].reasons, HasSubstr("unreachable"));

  ranked = Rank(port, "monlat");
  EXPECT_TRUE(ranked["node-b"].feasible) << ranked["node-b"].reasons;  // 9 ms
  EXPECT_FALSE(ranked["node-c"].feasible);                             // 45 ms
  EXPECT_THAT(ranked["node-c"].reasons,
              HasSubstr("45.00 ms (measured by monlat: its latest single ping)"));

  ranked = Rank(port, "smokeping_prober");
  EXPECT_TRUE(ranked["node-b"].feasible) << ranked["node-b"].reasons;  // 15 ms
  EXPECT_FALSE(ranked["node-c"].feasible);                             // 50 ms
  EXPECT_THAT(ranked["node-c"].reasons, HasSubstr("measured by smokeping_prober"));

  // Several sources: the first that has a pair wins (monlat has none for node-d).
  ranked = Rank(port, "monlat --rtt-source goldpinger");
  EXPECT_THAT(ranked["node-c"].reasons, HasSubstr("measured by monlat"));
  EXPECT_FALSE(ranked["node-d"].feasible);

  // serve's status page names the exporter of each measured pair.
  testing::Subprocess serve(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "serve", "--web.listen-address", "127.0.0.1:0",
       "--prometheus", absl::StrCat("http://127.0.0.1:", port), "--rtt-source", "goldpinger",
       "--data-dir", absl::StrCat(CARBONROUTE_SOURCE_DIR, "/data")},
      temp_dir.File("serve.log"));
  const int serve_port = testing::LoggedPort(serve, "serving the kube-scheduler extender on ");
  ASSERT_GT(serve_port, 0) << serve.Log();
  ASSERT_TRUE(testing::WaitFor([&] { return testing::IsHealthy(serve_port); }, absl::Seconds(30)))
      << serve.Log();
  const Json status = Json::parse(testing::HttpGet(serve_port, "/api/v1/status"), nullptr, false);
  ASSERT_TRUE(status.is_object());
  int by_goldpinger = 0;
  for (const Json& link : status["rtt"]) by_goldpinger += link["exporter"] == "goldpinger";
  EXPECT_EQ(by_goldpinger, 3) << status["rtt"].dump();
  EXPECT_EQ(serve.Terminate(), 0);

  // explain, as the closing note shows it.
  for (const char* source : {"goldpinger", "monlat", "smokeping_prober"}) {
    const testing::ShellRun explain = testing::Shell(absl::StrCat(
        CARBONROUTE_SCHEDULER_LITE_BINARY, " explain node-c --prometheus http://127.0.0.1:", port,
        " --rtt-source ", source, " --candidates nodes --from node-a --max-rtt-ms 25 --data-dir ",
        CARBONROUTE_SOURCE_DIR, "/data 2>/dev/null"));
    EXPECT_THAT(explain.output, HasSubstr(absl::StrCat("measured by ", source))) << explain.output;
    std::cerr << "explain under " << source << ":\n" << explain.output;
  }
}

}  // namespace
}  // namespace carbonroute
