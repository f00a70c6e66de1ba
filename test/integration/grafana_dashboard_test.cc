// Integration test: the shipped Grafana dashboard (deploy/grafana/carbonroute.json)
// and Prometheus rules (deploy/prometheus/carbonroute-rules.yaml and
// carbonroute-emissions.yaml) against a real Prometheus (Debian package
// `prometheus`) scraping a real collector, `scheduler-lite serve`, `hold`,
// `karmada --controller` and `route --controller`, and a Kepler-shaped exporter. Every panel query
// runs through /api/v1/query_range as Grafana would send it; those this set-up feeds must return
// data.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "net/curl_http_client.h"
#include "net/url.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_kube_api_server.h"
#include "test/testing/fake_provider_server.h"
#include "test/testing/prometheus_process.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

// Panels that need what this set-up lacks: WattTime's signal index.
const std::set<std::string> kPanelsWithoutDataHere = {"Relative signal (percentile)"};

// A panel query as Grafana sends it with every variable at "All".
std::string Interpolate(const std::string& expr) {
  return absl::StrReplaceAll(expr, {{"$location", ".*"},
                                    {"$node", ".*"},
                                    {"$signal", "average"},
                                    {"$__rate_interval", "15s"},
                                    {"$__range", "1h"}});
}

// deploy/prometheus/carbonroute-emissions.yaml with its one-minute step (the
// group's interval, the counters' offset, the minute's seconds) shortened to
// two seconds, written to `dir`: its series appear within seconds here.
std::string ShortenedEmissionsRules(const std::string& dir) {
  std::stringstream rules;
  rules << std::ifstream(std::string(CARBONROUTE_SOURCE_DIR) +
                         "/deploy/prometheus/carbonroute-emissions.yaml")
               .rdbuf();
  const std::string shortened = absl::StrReplaceAll(rules.str(), {{"interval: 1m", "interval: 2s"},
                                                                  {"offset 1m", "offset 2s"},
                                                                  {" / 60", " / 2"},
                                                                  {" * 60", " * 2"}});
  std::string path = dir + "/carbonroute-emissions.yaml";
  std::ofstream(path) << shortened;
  return path;
}

TEST(GrafanaDashboard, EveryPanelQueryRunsOnARealPrometheusAndTheFedOnesReturnData) {
  ASSERT_TRUE(std::filesystem::exists(testing::kPrometheusBinary))
      << "install Debian's prometheus package (./scripts/test does)";
  testing::ScopedTempDir temp_dir;  // grafana_dashboard
  const std::string& dir = temp_dir.path();
  const int prometheus_port = testing::FreeLoopbackPort();
  const int scheduler_port = testing::FreeLoopbackPort();

  // Electricity Maps for the budget panel: one hourly reading, no forecast.
  testing::FakeProviderServer electricity_maps;
  electricity_maps.Route("/v3/carbon-intensity/latest", [](const testing::FakeRequest&) {
    const absl::Time hour =
        absl::FromCivil(absl::ToCivilHour(absl::Now(), absl::UTCTimeZone()), absl::UTCTimeZone());
    return testing::FakeResponse{
        200,
        absl::StrCat(R"({"zone":"FR","carbonIntensity":55,"datetime":")",
                     absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", hour, absl::UTCTimeZone()),
                     R"(","isEstimated":false})"),
        {}};
  });
  electricity_maps.Route("/v3/carbon-intensity/forecast", [](const testing::FakeRequest&) {
    const absl::Time hour =
        absl::FromCivil(absl::ToCivilHour(absl::Now(), absl::UTCTimeZone()), absl::UTCTimeZone());
    std::string points;
    for (int i = 0; i < 30; ++i) {
      absl::StrAppend(
          &points, i == 0 ? "" : ",", R"({"carbonIntensity":60,"datetime":")",
          absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", hour + absl::Hours(i), absl::UTCTimeZone()),
          R"("})");
    }
    return testing::FakeResponse{
        200, absl::StrCat(R"({"zone":"FR","forecast":[)", points, "]}"), {}};
  });
  // One collector probing Prometheus's port over TCP (a peer in another zone).
  testing::CollectorProcess collector =
      testing::StartCollector(dir, absl::StrCat(R"yaml(
listen_address: 127.0.0.1:0
database: )yaml",
                                                dir, R"yaml(/collector.sqlite
node: {name: dash-node, region: europe-west1, zone: europe-west1-b, location: BE}
poll: {interval: 2s, forecast_horizon: 24h}
providers:
  - {type: replay, locations: [BE, DE, SE-SE3]}
  - {type: static, name: ppa, values: {onprem: 12.5}}
  - type: electricity_maps
    base_url: )yaml",
                                                electricity_maps.base_url(), R"yaml(/v3
    token: not-a-secret
    locations: [FR]
    monthly_budget: 1000
rtt:
  probe: {interval: 200ms, timeout: 1s}
  peers:
    - {name: prometheus, zone: europe-west1-c, address: 127.0.0.1, protocol: tcp, port: )yaml",
                                                prometheus_port, "}\n"));
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  testing::Subprocess scheduler(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "serve", "--listen",
       absl::StrCat("127.0.0.1:", scheduler_port), "--refresh", "1s", "--metrics",
       absl::StrCat("http://127.0.0.1:", collector.port, "/metrics")},
      dir + "/scheduler.log");
  ASSERT_TRUE(scheduler.running());

  // scheduler-lite hold against the fake API: one Job held (its window is hours
  // away), one released at once (malformed annotations), for the "Waiting" row.
  const int hold_port = testing::FreeLoopbackPort();
  testing::FakeBatchApi batch([] { return absl::Now(); });
  batch.AddJob("batch", "held", absl::Now(),
               {{"carbonroute.io/expected-runtime", "1h"}, {"carbonroute.io/deadline", "20h"}});
  batch.AddJob("batch", "typo", absl::Now(),
               {{"carbonroute.io/expected-runtime", "soon"}, {"carbonroute.io/deadline", "20h"}});
  testing::FakeKubeApiServer kube;
  kube.ServeBatchApi(&batch);
  testing::Subprocess hold(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "hold", "--kube-api-url", kube.base_url(), "--collector",
       absl::StrCat("http://127.0.0.1:", collector.port), "--web.listen-address",
       absl::StrCat("127.0.0.1:", hold_port), "--resync", "1s", "--data-dir",
       absl::StrCat(CARBONROUTE_SOURCE_DIR, "/data")},
      dir + "/hold.log");
  ASSERT_TRUE(hold.running());

  // scheduler-lite karmada --controller on the same fake API: the operator's sample policy
  // over three of the collector's locations, for the "Placing across clusters" row.
  const int karmada_port = testing::FreeLoopbackPort();
  batch.ServeResource("carbonaware.rossf7.github.io/v1alpha1", "carbonawarekarmadapolicies", true);
  batch.ServeResource("carbonroute.io/v1alpha1", "carbonplacementpolicies", true);
  batch.ServeResource("policy.karmada.io/v1alpha1", "propagationpolicies", true, false);
  batch.ServeResource("policy.karmada.io/v1alpha1", "clusterpropagationpolicies", false, false);
  // Its workload, priced by the savings ledger (the "What carbonroute saved" row); a second
  // policy whose target selects nothing the ledger can price feeds "Intervals left out".
  batch.ServeResource("apps/v1", "deployments", true);
  batch.PutObject("deployments", nlohmann::json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
    "spec": {"replicas": 2, "template": {"spec": {"containers": [
      {"name": "web", "resources": {"requests": {"cpu": "1", "memory": "1G"}}}]}}}})"));
  batch.PutObject("propagationpolicies", nlohmann::json::parse(R"({
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
             "placement": {}}})"));
  batch.PutObject("propagationpolicies",
                  nlohmann::json::parse(R"({"metadata": {"name": "api", "namespace": "default"},
                                            "spec": {"placement": {}}})"));
  batch.PutObject("carbonawarekarmadapolicies", nlohmann::json::parse(R"({
    "metadata": {"name": "api-carbon", "namespace": "default"},
    "spec": {"clusterLocations": [{"name": "member-be", "location": "BE"}],
             "desiredClusters": 1, "karmadaTarget": "propagationpolicies.policy.karmada.io",
             "karmadaTargetRef": {"name": "api"}}})"));
  batch.PutObject("carbonawarekarmadapolicies", nlohmann::json::parse(R"({
    "metadata": {"name": "web-carbon", "namespace": "default"},
    "spec": {"clusterLocations": [{"name": "member-be", "location": "BE"},
                                  {"name": "member-de", "location": "DE"},
                                  {"name": "member-fr", "location": "FR"}],
             "desiredClusters": 1, "karmadaTarget": "propagationpolicies.policy.karmada.io",
             "karmadaTargetRef": {"name": "web"}}})"));
  testing::Subprocess karmada(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "karmada", "--controller", "--kube-api-url",
       kube.base_url(), "--metrics", absl::StrCat("http://127.0.0.1:", collector.port, "/metrics"),
       "--web.listen-address", absl::StrCat("127.0.0.1:", karmada_port), "--resync", "1s",
       "--data-dir", absl::StrCat(CARBONROUTE_SOURCE_DIR, "/data")},
      dir + "/karmada.log");
  ASSERT_TRUE(karmada.running());

  // scheduler-lite route --controller on the same fake API: a Service served from Belgium and
  // Germany (two Nodes each), its DestinationRule, a policy: the "Steering requests" row.
  const int route_port = testing::FreeLoopbackPort();
  batch.ServeResource("carbonroute.io/v1alpha1", "carbonroutingpolicies", true);
  batch.ServeResource("networking.istio.io/v1", "destinationrules", true, false);
  batch.ServeResource("discovery.k8s.io/v1", "endpointslices", true, false);
  nlohmann::json endpoints = nlohmann::json::array();
  std::vector<std::string> nodes;  // the fake API server answers Node lists itself
  for (const char* region : {"europe-west1", "europe-west3"}) {
    for (int i = 0; i < 2; ++i) {
      const std::string node = absl::StrCat(region, "-", i);
      nodes.push_back(nlohmann::json{
          {"metadata", {{"name", node}, {"labels", {{"topology.kubernetes.io/region", region}}}}}}
                          .dump());
      endpoints.push_back(
          {{"addresses", {absl::StrCat("10.0.", endpoints.size(), ".1")}}, {"nodeName", node}});
    }
  }
  // A Ready Node in France (the cleanest: Electricity Maps' 55) for the re-placement below.
  nodes.push_back(R"({"metadata": {"name": "fr-0", "labels": {"carbonroute.io/location": "FR"}},
                      "status": {"conditions": [{"type": "Ready", "status": "True"}]}})");
  kube.SetNodes(nodes, "1");
  batch.PutObject("endpointslices", {{"metadata",
                                      {{"name", "checkout-x"},
                                       {"namespace", "shop"},
                                       {"labels", {{"kubernetes.io/service-name", "checkout"}}}}},
                                     {"endpoints", endpoints}});
  batch.PutObject("destinationrules", nlohmann::json::parse(R"({
    "metadata": {"name": "checkout", "namespace": "shop"},
    "spec": {"host": "checkout", "trafficPolicy": {"outlierDetection": {"interval": "10s"}}}})"));
  batch.PutObject("carbonroutingpolicies", nlohmann::json::parse(R"({
    "metadata": {"name": "checkout", "namespace": "shop"},
    "spec": {"targetRefs": [{"group": "networking.istio.io", "kind": "DestinationRule",
                             "name": "checkout"}], "maxRttMs": 30}})"));
  testing::Subprocess route(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "route", "--controller", "--kube-api-url",
       kube.base_url(), "--metrics", absl::StrCat("http://127.0.0.1:", collector.port, "/metrics"),
       "--web.listen-address", absl::StrCat("127.0.0.1:", route_port), "--resync", "1s",
       "--data-dir", absl::StrCat(CARBONROUTE_SOURCE_DIR, "/data")},
      dir + "/route.log");
  ASSERT_TRUE(route.running());

  // scheduler-lite rebalance --controller --dry-run on the same fake API: a Deployment's Pod in
  // Germany that France beats, for the "Re-placing running Pods" row (a would-be eviction, the
  // shadow ledger's restart).
  const int rebalance_port = testing::FreeLoopbackPort();
  batch.ServeResource("carbonroute.io/v1alpha1", "carbonrebalancepolicies", true);
  batch.ServeResource("apps/v1", "replicasets", true, false);
  batch.ServeResource("apps/v1", "statefulsets", true, false);
  batch.PutObject("deployments", nlohmann::json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "api", "namespace": "moving", "uid": "dep-api"}})"));
  batch.PutObject("replicasets", nlohmann::json::parse(R"({
    "apiVersion": "apps/v1", "kind": "ReplicaSet",
    "metadata": {"name": "api-1", "namespace": "moving", "uid": "rs-api",
                 "ownerReferences": [{"kind": "Deployment", "name": "api", "uid": "dep-api",
                                      "controller": true}]}})"));
  batch.AddPod("moving", "api-1-x", absl::Now() - absl::Hours(1), {}, {}, {});
  batch.Update("pods", "moving", "api-1-x", nlohmann::json::parse(R"({
    "metadata": {"ownerReferences": [{"kind": "ReplicaSet", "name": "api-1", "uid": "rs-api",
                                      "controller": true}]},
    "spec": {"nodeName": "europe-west3-0", "containers": [
      {"name": "api", "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]},
    "status": {"phase": "Running"}})"));
  batch.PutObject("carbonrebalancepolicies", nlohmann::json::parse(R"({
    "metadata": {"name": "api", "namespace": "moving"},
    "spec": {"carbonToleranceGramsPerKwh": 0, "minStay": "1s", "joulesPerStart": 10}})"));
  testing::Subprocess rebalance(
      {CARBONROUTE_SCHEDULER_LITE_BINARY, "rebalance", "--controller", "--dry-run",
       "--scheduler-name", "default-scheduler", "--kube-api-url", kube.base_url(), "--metrics",
       absl::StrCat("http://127.0.0.1:", collector.port, "/metrics"), "--web.listen-address",
       absl::StrCat("127.0.0.1:", rebalance_port), "--resync", "1s", "--data-dir",
       absl::StrCat(CARBONROUTE_SOURCE_DIR, "/data")},
      dir + "/rebalance.log");
  ASSERT_TRUE(rebalance.running());

  // Kepler (0.10 and later) on the collector's Node: one pod's container at
  // 10 W, its energy counter growing with the clock.
  testing::FakeProviderServer kepler;
  const absl::Time kepler_start = absl::Now();
  kepler.Route("/metrics", [kepler_start](const testing::FakeRequest&) {
    const double joules = 10 * absl::ToDoubleSeconds(absl::Now() - kepler_start);
    return testing::FakeResponse{
        200,
        absl::StrCat(
            "# TYPE kepler_container_cpu_joules_total counter\n"
            "kepler_container_cpu_joules_total{node_name=\"dash-node\",container_id=\"c1\","
            "container_name=\"app\",runtime=\"containerd\",state=\"running\",zone=\"package\","
            "pod_id=\"uid-1\"} ",
            joules,
            "\n# TYPE kepler_pod_cpu_joules_total counter\n"
            "kepler_pod_cpu_joules_total{node_name=\"dash-node\",pod_id=\"uid-1\","
            "pod_name=\"web-0\",pod_namespace=\"shop\",state=\"running\",zone=\"package\"} ",
            joules, "\n"),
        {}};
  });

  std::unique_ptr<testing::Subprocess> prometheus = testing::StartPrometheus(
      dir, prometheus_port,
      {{"carbonroute-collector", collector.port},
       {"carbonroute-scheduler", scheduler_port},
       {"carbonroute-hold", hold_port},
       {"carbonroute-karmada", karmada_port},
       {"carbonroute-route", route_port},
       {"carbonroute-rebalance", rebalance_port},
       {"kepler", kepler.port()}},
      {std::string(CARBONROUTE_SOURCE_DIR) + "/deploy/prometheus/carbonroute-rules.yaml",
       ShortenedEmissionsRules(dir)});
  ASSERT_TRUE(prometheus->running());

  // kube-scheduler's calls, over one keep-alive connection: decisions and latency.
  absl::StatusOr<std::unique_ptr<net::CurlHttpClient>> http =
      net::CurlHttpClient::Create("grafana-dashboard-test");
  ASSERT_TRUE(http.ok());
  ASSERT_TRUE(
      testing::WaitFor([&] { return testing::IsHealthy(scheduler_port); }, absl::Seconds(30)))
      << scheduler.Log();
  auto extender_calls = [&] {
    for (const char* verb : {"filter", "prioritize"}) {
      net::HttpRequest request;
      request.method = "POST";
      request.url = absl::StrCat("http://127.0.0.1:", scheduler_port, "/", verb);
      request.headers = {{"Content-Type", "application/json"}};
      request.body =
          R"({"Pod":{"metadata":{"name":"p","labels":{"delay_dash-node":"25"}}},"Nodes":null,"NodeNames":["dash-node"]})";
      absl::StatusOr<net::HttpResponse> response = (*http)->Send(request);
      ASSERT_TRUE(response.ok()) << response.status();
      ASSERT_EQ(response->status, 200) << response->body;
    }
  };

  const std::string dashboard_path =
      std::string(CARBONROUTE_SOURCE_DIR) + "/deploy/grafana/carbonroute.json";
  const nlohmann::json dashboard = nlohmann::json::parse(std::ifstream(dashboard_path));
  struct Query {
    std::string panel, expr;
  };
  std::vector<Query> queries;
  for (const nlohmann::json& panel : dashboard["panels"]) {
    if (panel["type"] == "row") continue;
    ASSERT_FALSE(panel["targets"].empty()) << panel["title"];
    for (const nlohmann::json& target : panel["targets"]) {
      queries.push_back({panel["title"].get<std::string>(), target["expr"].get<std::string>()});
    }
  }
  ASSERT_GE(queries.size(), 19u);

  auto query_range = [&](const std::string& expr, nlohmann::json& result) {
    const int64_t end = absl::ToUnixSeconds(absl::Now());
    const std::string body = testing::HttpGet(
        prometheus_port, "/api/v1/query_range" + net::Query({{"query", Interpolate(expr)},
                                                             {"start", absl::StrCat(end - 120)},
                                                             {"end", absl::StrCat(end)},
                                                             {"step", "1"}}));
    nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) return std::string("not JSON: ") + body;
    if (parsed.value("status", "") != "success") return parsed.dump();
    result = parsed["data"]["result"];
    return std::string();
  };

  // Wait until every panel that should have data has it (rates need two scrapes
  // after the extender calls; the zone RTT needs a probe interval of answers).
  std::map<std::string, std::string> missing;
  const bool all_data = testing::WaitFor(
      [&] {
        extender_calls();
        missing.clear();
        for (const Query& query : queries) {
          nlohmann::json result;
          const std::string error = query_range(query.expr, result);
          if (!error.empty()) {
            missing[query.panel] = "error: " + error;
          } else if (result.empty() && !kPanelsWithoutDataHere.contains(query.panel)) {
            missing[query.panel] = "no data: " + query.expr;
          }
        }
        return missing.empty();
      },
      absl::Seconds(90));
  std::string report;
  for (const auto& [panel, why] : missing) absl::StrAppend(&report, panel, ": ", why, "\n");
  EXPECT_TRUE(all_data) << report << prometheus->Log();

  // Every query is valid PromQL, the ones without data here included.
  for (const Query& query : queries) {
    nlohmann::json result;
    EXPECT_EQ(query_range(query.expr, result), "") << query.panel;
  }

  // The recording rules evaluate on the same data: the cleanest location of
  // the "europe" group is the collector's own (BE is the only located one).
  nlohmann::json cleanest;
  ASSERT_EQ(query_range("region_group:carbonroute_carbon_intensity_grams_per_kilowatt_hour:min",
                        cleanest),
            "");
  ASSERT_FALSE(cleanest.empty()) << prometheus->Log();
  EXPECT_EQ(cleanest[0]["metric"]["region_group"], "europe");
  EXPECT_EQ(cleanest[0]["metric"]["location"], "BE");
  // The emissions rules price the pod's 10 W at its Node's location (BE, the
  // collector's): grams per second = 10 J/s × gCO2eq/kWh / 3.6e6 J/kWh. The
  // factor of 2 leaves room for scrapes late on a busy machine; a wrong unit
  // (mJ, kWh) or a wrong join is off by far more.
  nlohmann::json grams;
  ASSERT_EQ(query_range("namespace_pod_container:carbonroute_emissions_grams_per_second:rate1m"
                        "{namespace=\"shop\",pod=\"web-0\",emissions_type=\"average\"}",
                        grams),
            "");
  nlohmann::json intensity;
  ASSERT_EQ(query_range("node:carbonroute_carbon_intensity_grams_per_kilowatt_hour:avg"
                        "{node=\"dash-node\",emissions_type=\"average\"}",
                        intensity),
            "");
  ASSERT_FALSE(grams.empty()) << prometheus->Log();
  ASSERT_FALSE(intensity.empty()) << prometheus->Log();
  EXPECT_EQ(intensity[0]["metric"]["location"], "BE");
  const double grams_per_second = std::stod(grams[0]["values"].back()[1].get<std::string>());
  const double expected =
      10 * std::stod(intensity[0]["values"].back()[1].get<std::string>()) / 3.6e6;
  EXPECT_GT(grams_per_second, expected / 2);
  EXPECT_LT(grams_per_second, expected * 2);
  // And no alert fires on a healthy set-up.
  nlohmann::json alerts =
      nlohmann::json::parse(testing::HttpGet(prometheus_port, "/api/v1/alerts"), nullptr, false);
  ASSERT_FALSE(alerts.is_discarded());
  EXPECT_TRUE(alerts["data"]["alerts"].empty()) << alerts.dump();
}

}  // namespace
}  // namespace carbonroute
