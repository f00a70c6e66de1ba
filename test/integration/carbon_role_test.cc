// Integration test: carbon once per cluster, latency per Node, as deployed.
//
// A fake Kubernetes API lists 1,000 Nodes in 6 grid locations (labels as in
// production: topology.kubernetes.io/region and /zone everywhere, a
// carbonroute.io/location and carbonroute.io/watttime-region label on half of
// the locations, the region map and the coordinates table for the rest).
// 20 latency-role collectors (no provider; each --node-name a listed Node) and
// 2 carbon-role collectors (`locations: nodes`, peer selection none) run as
// processes against loopback fakes of WattTime and Electricity Maps; a real
// Prometheus scrapes all 22. Then:
//   - per validity period, exactly 2 upstream calls per (provider, location),
//     2 logins in all, and none from a latency-role collector;
//   - `scheduler-lite rank --candidates nodes --prometheus` gives each of the
//     20 Nodes its location's value, and does again with one replica killed;
//   - a Node relabelled to a seventh location is polled within one interval;
//   - once that location's last Node is deleted, its series go after grace.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/fake_kube_api_server.h"
#include "test/testing/fake_provider_server.h"
#include "test/testing/prometheus_process.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using testing::FakeRequest;
using testing::FakeResponse;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kNodes = 1000;
constexpr int kLatencyCollectors = 20;

struct GridLocation {
  const char* region;    // topology.kubernetes.io/region
  const char* zone;      // its grid zone (data/cloud-regions.csv)
  bool labelled;         // carbonroute.io/location and /watttime-region labels set
  double grams_per_kwh;  // what the fake Electricity Maps answers for it
};
// Three locations labelled, three found through the region map and (WattTime)
// the region's coordinates.
constexpr GridLocation kLocations[] = {
    {"europe-west3", "DE", true, 410},
    {"europe-west4", "NL", true, 330},
    {"europe-west9", "FR", true, 55},
    {"us-west2", "US-CAL-CISO", false, 240},
    {"us-central1", "US-MIDW-MISO", false, 520},
    {"asia-northeast1", "JP-TK", false, 470},
};

std::string NodeName(int i) { return absl::StrFormat("node-%04d", i); }

std::string NodeJson(const std::string& name, const std::string& region, const std::string& zone,
                     const std::string& location, const std::string& watttime_region) {
  std::string labels = absl::StrCat(R"("topology.kubernetes.io/region":")", region,
                                    R"(","topology.kubernetes.io/zone":")", zone, R"(")");
  if (!location.empty())
    absl::StrAppend(&labels, R"(,"carbonroute.io/location":")", location, R"(")");
  if (!watttime_region.empty()) {
    absl::StrAppend(&labels, R"(,"carbonroute.io/watttime-region":")", watttime_region, R"(")");
  }
  return absl::StrCat(
      R"({"metadata":{"name":")", name, R"(","labels":{)", labels,
      R"(}},"status":{"addresses":[{"type":"InternalIP","address":"127.0.0.1"}]}})");
}

std::string NodeOf(int i) {
  const GridLocation& at = kLocations[i % 6];
  const std::string zone = absl::StrCat(at.region, (i / 6) % 2 == 0 ? "-a" : "-b");
  return NodeJson(NodeName(i), at.region, zone, at.labelled ? at.zone : "",
                  at.labelled ? at.zone : "");
}

// The value of `name="..."` in a query string ("" if absent).
std::string Param(const FakeRequest& request, const std::string& name) {
  const std::size_t at = request.target.find(name + "=");
  if (at == std::string::npos) return "";
  const std::size_t start = at + name.size() + 1;
  return request.target.substr(start, request.target.find('&', start) - start);
}

std::string Iso(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", t, absl::UTCTimeZone());
}

absl::Time HourOf(absl::Time t) {
  return absl::FromCivil(absl::ToCivilHour(t, absl::UTCTimeZone()), absl::UTCTimeZone());
}

// WattTime v3 and Electricity Maps v3 on one loopback server, answering
// every location; readings valid for a day (WattTime) and an hour (EM).
class FakeProviders {
 public:
  FakeProviders() {
    server_.Route("/login", [](const FakeRequest&) {
      return FakeResponse{200, R"({"token":"integration-token"})", {}};
    });
    server_.Route("/v3/my-access", [](const FakeRequest&) {
      return FakeResponse{200, R"({"signal_types":[]})", {}};
    });
    server_.Route("/v3/region-from-loc", [](const FakeRequest& request) {
      return FakeResponse{200,
                          absl::StrCat(R"({"region":"WT_)", Param(request, "latitude"),
                                       R"(","signal_type":"co2_moer"})"),
                          {}};
    });
    server_.Route("/v3/forecast", [](const FakeRequest& request) {
      const absl::Time day =
          absl::FromCivil(absl::ToCivilDay(absl::Now(), absl::UTCTimeZone()), absl::UTCTimeZone());
      std::vector<std::string> points;
      for (int i = 0; i < 3; ++i) {
        points.push_back(
            absl::StrCat(R"({"point_time":")",
                         absl::FormatTime("%Y-%m-%dT%H:%M:%S+00:00", day + absl::Hours(24 * i),
                                          absl::UTCTimeZone()),
                         R"(","value":1000})"));
      }
      return FakeResponse{200,
                          absl::StrCat(R"({"data":[)", absl::StrJoin(points, ","),
                                       R"(],"meta":{"data_point_period_seconds":86400,"region":")",
                                       Param(request, "region"),
                                       R"(","signal_type":"co2_moer","units":"lbs_co2_per_mwh"}})"),
                          {}};
    });
    server_.Route("/v3/carbon-intensity/latest", [this](const FakeRequest& request) {
      const std::string zone = Param(request, "zone");
      NoteFirstCall();
      return FakeResponse{200,
                          absl::StrFormat(R"({"zone":"%s","carbonIntensity":%g,"datetime":"%s",)"
                                          R"("isEstimated":false,"estimationMethod":null})",
                                          zone, Value(zone), Iso(HourOf(absl::Now()))),
                          {}};
    });
    server_.Route("/v3/carbon-intensity/forecast", [](const FakeRequest& request) {
      const std::string zone = Param(request, "zone");
      std::vector<std::string> points;
      for (int i = 0; i < 30; ++i) {
        points.push_back(absl::StrFormat(R"({"carbonIntensity":%g,"datetime":"%s"})", Value(zone),
                                         Iso(HourOf(absl::Now()) + absl::Hours(i))));
      }
      return FakeResponse{
          200,
          absl::StrCat(R"({"zone":")", zone, R"(","forecast":[)", absl::StrJoin(points, ","), "]}"),
          {}};
    });
  }

  std::string base_url() const { return server_.base_url(); }

  // Calls to `path` per value of the query parameter `parameter`.
  std::map<std::string, int> CallsBy(const std::string& path, const std::string& parameter) const {
    std::map<std::string, int> calls;
    for (const FakeRequest& request : server_.requests()) {
      if (request.path == path) ++calls[Param(request, parameter)];
    }
    return calls;
  }
  int Count(const std::string& path) const { return server_.Count(path); }
  absl::Time first_call() const {
    absl::MutexLock lock(&mutex_);
    return first_call_;
  }

  static double Value(const std::string& zone) {
    for (const GridLocation& location : kLocations) {
      if (zone == location.zone) return location.grams_per_kwh;
    }
    return 99;  // a location added during the test
  }

 private:
  void NoteFirstCall() {
    absl::MutexLock lock(&mutex_);
    if (first_call_ == absl::InfiniteFuture()) first_call_ = absl::Now();
  }

  testing::FakeProviderServer server_;
  mutable absl::Mutex mutex_;
  absl::Time first_call_ ABSL_GUARDED_BY(mutex_) = absl::InfiniteFuture();
};

std::string LatencyRoleConfig(const std::string& dir, const std::string& api) {
  return absl::StrCat(R"yaml(
listen_address: 127.0.0.1:0
database: )yaml",
                      dir, R"yaml(
node: {name: set-by-the-command-line}
rtt:
  probe: {interval: 5s, timeout: 1s}
  discovery:
    kubernetes: {api_url: ")yaml",
                      api, R"yaml(", protocol: tcp, port: )yaml", testing::FreeLoopbackPort(),
                      R"yaml(}
)yaml");
}

std::string CarbonRoleConfig(const std::string& database, const std::string& api,
                             const std::string& providers) {
  return absl::StrCat(R"yaml(
listen_address: 127.0.0.1:0
database: )yaml",
                      database, R"yaml(
node: {name: set-by-the-command-line}
poll: {interval: 1s, grace: 3s}
rtt:
  discovery:
    kubernetes: {api_url: ")yaml",
                      api, R"yaml("}
  peer_selection: {mode: none}
providers:
  - type: watttime
    name: watttime
    base_url: )yaml",
                      providers, R"yaml(
    username: integration
    password: not-a-secret
    locations: nodes
    account_shared_by: 2
  - type: electricity_maps
    name: electricity_maps
    base_url: )yaml",
                      providers, R"yaml(/v3
    token: not-a-secret
    locations: nodes
    monthly_budget: 100000
    account_shared_by: 2
)yaml");
}

// Each Node's grams_per_kwh from `scheduler-lite rank --format json` (no value: absent).
std::map<std::string, double> RankedValues(const std::string& sources) {
  testing::ShellRun run = testing::Shell(absl::StrCat(CARBONROUTE_SCHEDULER_LITE_BINARY,
                                                      " rank --candidates nodes --format json ",
                                                      sources, " 2>/dev/null"));
  std::map<std::string, double> values;
  nlohmann::json parsed = nlohmann::json::parse(run.output, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return values;
  for (const nlohmann::json& candidate : parsed["candidates"]) {
    if (candidate["grams_per_kwh"].is_number()) {
      values[candidate["name"].get<std::string>()] = candidate["grams_per_kwh"].get<double>();
    }
  }
  return values;
}

TEST(CarbonRole, UpstreamCallsAreFlatInTheNumberOfNodes) {
  ASSERT_TRUE(std::filesystem::exists(testing::kPrometheusBinary))
      << "install Debian's prometheus package (./scripts/test does)";
  testing::ScopedTempDir temp_dir;
  const std::string& dir = temp_dir.path();
  FakeProviders providers;
  testing::FakeKubeApiServer api;
  std::vector<std::string> nodes;
  for (int i = 0; i < kNodes; ++i) nodes.push_back(NodeOf(i));
  api.SetNodes(nodes, "100");

  // The latency role: 20 Nodes spread over the 6 locations.
  std::vector<testing::CollectorProcess> latency;
  std::vector<int> latency_nodes;
  for (int k = 0; k < kLatencyCollectors; ++k) {
    const int i = k * (kNodes / kLatencyCollectors) + k % 6;  // every location, several times
    latency_nodes.push_back(i);
    const std::string node_dir = absl::StrCat(dir, "/", NodeName(i));
    std::filesystem::create_directory(node_dir);
    latency.push_back(testing::StartCollector(node_dir,
                                              LatencyRoleConfig("\":memory:\"", api.base_url()),
                                              "collector.log", {"--node-name", NodeName(i)}));
    ASSERT_GT(latency.back().port, 0) << latency.back().process->Log();
  }
  // The carbon role: two replicas of one Deployment, on two of those Nodes.
  std::vector<testing::CollectorProcess> carbon;
  for (int r = 0; r < 2; ++r) {
    const std::string replica_dir = absl::StrCat(dir, "/carbon-", r);
    std::filesystem::create_directory(replica_dir);
    carbon.push_back(testing::StartCollector(
        replica_dir,
        CarbonRoleConfig(replica_dir + "/cache.sqlite", api.base_url(), providers.base_url()),
        "collector.log", {"--node-name", NodeName(latency_nodes[r])}));
    ASSERT_GT(carbon.back().port, 0) << carbon.back().process->Log();
  }
  // Every carbon replica exports both providers' series for the 6 locations.
  for (const testing::CollectorProcess& replica : carbon) {
    ASSERT_TRUE(testing::WaitFor(
        [&] {
          const std::string page = testing::HttpGet(replica.port, "/metrics");
          for (const GridLocation& location : kLocations) {
            for (const char* provider : {"watttime", "electricity_maps"}) {
              if (page.find(absl::StrCat(
                      "carbonroute_carbon_intensity_grams_per_kilowatt_hour{", "emissions_type=\"",
                      std::string(provider) == "watttime" ? "marginal" : "average",
                      "\",estimated=\"false\",location=\"", location.zone, "\",provider=\"",
                      provider, "\"}")) == std::string::npos) {
                return false;
              }
            }
          }
          return true;
        },
        absl::Seconds(60)))
        << testing::HttpGet(replica.port, "/metrics") << replica.process->Log();
  }
  const std::string replica_page = testing::HttpGet(carbon[0].port, "/metrics");
  EXPECT_THAT(replica_page, HasSubstr("carbonroute_provider_locations{provider=\"watttime\"} 6"));
  EXPECT_THAT(replica_page,
              HasSubstr("carbonroute_provider_unmapped_nodes{provider=\"watttime\"} 0"));
  EXPECT_THAT(replica_page,
              HasSubstr("carbonroute_provider_budget_calls{provider=\"electricity_maps\"} 50000"));
  EXPECT_THAT(replica_page, Not(HasSubstr("carbonroute_rtt_seconds{")));  // it probes nobody

  // Upstream calls: 2 per (provider, location) per validity period, whatever the 1,000 Nodes.
  // Electricity Maps readings are valid for the hour: a boundary crossed since the first
  // call adds one call per replica.
  const int hours =
      static_cast<int>((HourOf(absl::Now()) - HourOf(providers.first_call())) / absl::Hours(1)) + 1;
  for (const GridLocation& location : kLocations) {
    EXPECT_EQ(providers.CallsBy("/v3/carbon-intensity/latest", "zone")[location.zone], 2 * hours)
        << location.zone;
    EXPECT_EQ(providers.CallsBy("/v3/carbon-intensity/forecast", "zone")[location.zone], 2)
        << location.zone;
  }
  std::map<std::string, int> watttime = providers.CallsBy("/v3/forecast", "region");
  EXPECT_EQ(watttime.size(), 6u);  // 3 labelled regions, 3 from coordinates
  for (const auto& [region, calls] : watttime) EXPECT_EQ(calls, 2) << region;
  EXPECT_EQ(watttime["DE"], 2);
  EXPECT_EQ(watttime["WT_34.05"], 2);  // us-west2's coordinates, through region-from-loc
  EXPECT_EQ(providers.Count("/v3/region-from-loc"), 2 * 3);
  EXPECT_EQ(providers.Count("/login"), 2);  // one per replica per token lifetime
  EXPECT_EQ(providers.Count("/v3/my-access"), 2);
  for (const testing::CollectorProcess& node : latency) {
    const std::string page = testing::HttpGet(node.port, "/metrics");
    EXPECT_THAT(page, Not(HasSubstr("carbonroute_provider_requests_total{")));
    // No poll loop: no poll timestamp that an alert would read as stuck since 1970.
    EXPECT_THAT(page, Not(HasSubstr("carbonroute_last_poll_timestamp_seconds ")));
    EXPECT_THAT(page, HasSubstr("carbonroute_node_info{"));
  }

  // Prometheus scrapes all 22; scheduler-lite joins Node → location (latency role) with
  // carbon (carbon role), the two replicas' copies as one reading.
  testing::ScrapeTarget latency_job{"carbonroute-latency", latency[0].port};
  for (std::size_t k = 1; k < latency.size(); ++k)
    latency_job.more_ports.push_back(latency[k].port);
  testing::ScrapeTarget carbon_job{"carbonroute-carbon", carbon[0].port, "", {carbon[1].port}};
  std::unique_ptr<testing::Subprocess> prometheus =
      testing::StartPrometheus(dir, 0, {latency_job, carbon_job});
  const int prometheus_port = testing::PrometheusPort(*prometheus);
  ASSERT_GT(prometheus_port, 0) << prometheus->Log();
  // 2 providers × 6 locations × 2 replicas: the cluster's carbon series, flat in Nodes.
  ASSERT_EQ(testing::WaitForSeries(prometheus_port,
                                   "carbonroute_carbon_intensity_grams_per_kilowatt_hour", 24)
                .size(),
            24u)
      << prometheus->Log();
  // Every latency-role Node with its grid location (learnt from its own Node at start).
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        const nlohmann::json info =
            testing::WaitForSeries(prometheus_port, "carbonroute_node_info", kLatencyCollectors);
        if (info.size() != static_cast<std::size_t>(kLatencyCollectors)) return false;
        for (const nlohmann::json& series : info) {
          if (series["metric"].value("location", "").empty()) return false;
        }
        return true;
      },
      absl::Seconds(60)))
      << prometheus->Log();
  const std::string prometheus_url =
      absl::StrCat("--prometheus http://127.0.0.1:", prometheus_port);
  auto expect_every_node_valued = [&](const std::map<std::string, double>& values) {
    std::vector<std::string> names;
    for (const auto& [name, value] : values) names.push_back(name);
    ASSERT_EQ(values.size(), static_cast<std::size_t>(kLatencyCollectors))
        << absl::StrJoin(names, " ");
    for (int i : latency_nodes) {
      ASSERT_TRUE(values.contains(NodeName(i))) << NodeName(i);
      EXPECT_EQ(values.at(NodeName(i)), kLocations[i % 6].grams_per_kwh) << NodeName(i);
    }
  };
  expect_every_node_valued(RankedValues(prometheus_url));
  // Direct mode takes both roles' URLs the same way.
  std::string direct;
  for (const auto& collector : latency) {
    absl::StrAppend(&direct, " --metrics http://127.0.0.1:", collector.port, "/metrics");
  }
  absl::StrAppend(&direct, " --metrics http://127.0.0.1:", carbon[1].port, "/metrics");
  expect_every_node_valued(RankedValues(direct));

  // One carbon replica killed: answers go on from the other's copies.
  carbon[0].process->Kill();
  ASSERT_EQ(testing::WaitForSeries(prometheus_port,
                                   "carbonroute_carbon_intensity_grams_per_kilowatt_hour", 12)
                .size(),
            12u);
  expect_every_node_valued(RankedValues(prometheus_url));

  // A Node relabelled to a seventh location (Poland) is polled: the poll loop takes the new
  // locations at its next poll, at most one interval on (collector_test's
  // PollerTest.FollowsLocationsGivenAtRunTime pins that down on a fake clock; here the wait
  // is only a timeout).
  const int moved = kNodes - 1;  // not a latency-role Node
  const std::string relabelled =
      NodeJson(NodeName(moved), "europe-central2", "europe-central2-a", "PL", "PL");
  nodes[moved] = relabelled;
  api.SetNodes(nodes, "101");
  api.BroadcastEvent(absl::StrCat(R"({"type":"MODIFIED","object":)", relabelled, "}"));
  const testing::CollectorProcess& survivor = carbon[1];
  auto survivor_has_pl = [&] {
    const std::string page = testing::HttpGet(survivor.port, "/metrics");
    return page.find("location=\"PL\",provider=\"electricity_maps\"} 99") != std::string::npos &&
           page.find("location=\"PL\",provider=\"watttime\"}") != std::string::npos;
  };
  ASSERT_TRUE(testing::WaitFor(survivor_has_pl, absl::Seconds(20)))
      << testing::HttpGet(survivor.port, "/metrics") << survivor.process->Log();
  EXPECT_EQ(providers.CallsBy("/v3/carbon-intensity/latest", "zone")["PL"], 1);
  EXPECT_EQ(providers.CallsBy("/v3/forecast", "region")["PL"], 1);

  // Its last Node deleted: Poland stops being polled, its series go after grace (3 s).
  nodes.erase(nodes.begin() + moved);
  api.SetNodes(nodes, "102");
  api.BroadcastEvent(absl::StrCat(R"({"type":"DELETED","object":)", relabelled, "}"));
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return testing::HttpGet(survivor.port, "/metrics").find("location=\"PL\"") ==
               std::string::npos;
      },
      absl::Seconds(30)))
      << testing::HttpGet(survivor.port, "/metrics");
  EXPECT_THAT(survivor.process->Log(),
              HasSubstr("provider electricity_maps location PL: no longer polled"));
  EXPECT_EQ(providers.CallsBy("/v3/carbon-intensity/latest", "zone")["PL"], 1);

  // A restart keeps the month's count: the budget left is what it was (the cache also
  // spares every call for readings still valid).
  auto budget_left = [](int port) {
    const std::string page = testing::HttpGet(port, "/metrics");
    const std::string key =
        "carbonroute_provider_budget_remaining_calls{provider=\"electricity_maps\"} ";
    const std::size_t at = page.find(key);
    double value = -1;
    if (at != std::string::npos) {
      (void)absl::SimpleAtod(page.substr(at + key.size(), page.find('\n', at) - at - key.size()),
                             &value);
    }
    return value;
  };
  const double left_before_restart = budget_left(survivor.port);
  EXPECT_LT(left_before_restart, 50000);  // its calls so far were counted
  EXPECT_EQ(survivor.process->Terminate(), 0);
  const std::string survivor_dir = absl::StrCat(dir, "/carbon-1");
  testing::CollectorProcess restarted = testing::StartCollector(
      survivor_dir,
      CarbonRoleConfig(survivor_dir + "/cache.sqlite", api.base_url(), providers.base_url()),
      "restarted.log", {"--node-name", NodeName(latency_nodes[1])});
  ASSERT_GT(restarted.port, 0) << restarted.process->Log();
  // Not 50,000 again; equal unless an hour boundary has passed since (a new reading per
  // location and a forecast: at most 2 × 7 calls).
  const double left_after_restart = budget_left(restarted.port);
  EXPECT_LE(left_after_restart, left_before_restart);
  EXPECT_GE(left_after_restart, left_before_restart - 14);

  for (testing::CollectorProcess& node : latency) EXPECT_EQ(node.process->Terminate(), 0);
  EXPECT_EQ(restarted.process->Terminate(), 0);
}

}  // namespace
}  // namespace carbonroute
