// The extender's ledger priced at measured energy, on a real Prometheus: Kepler
// (both metric families) and DCGM series backfilled with promtool (an injected
// clock cannot drive Prometheus), the shipped emissions recording rules
// evaluated over them (`promtool tsdb create-blocks-from rules`, one level of
// the rules' chain at a time: a rule cannot read what another rule records in
// the same run), then the ledger run on fixed past times through serve's own
// reader (ReadMeteredEnergy), and its grams set beside the rules' grams for the
// same half hour.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "extender/extender_daemon.h"
#include "extender/pod_ledger.h"
#include "ledger/ledger.h"
#include "ledger/metered_energy.h"
#include "model_sources/measured_energy.h"
#include "net/curl_http_client.h"
#include "net/url.h"
#include "prometheus/registry.h"
#include "test/testing/build_paths.h"
#include "test/testing/collector_process.h"
#include "test/testing/counter_value.h"
#include "test/testing/prometheus_process.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using Json = nlohmann::json;

// When Germany's intensity drops from 400 to 350 g/kWh (the first sample at
// 350), inside a refresh: the ledger prices that window at its end, the
// rules each minute at its own time.
const absl::Duration kSwitch = absl::Seconds(21 * 60 + 15);

// Forty minutes from `start`, a sample every 15 s (s: seconds since start):
//   node-de  Kepler ≥ 0.10: shop/web-1 20 W; ml/train-1 30 W CPU and 240 W GPU;
//            DCGM: ml/train-1's GPU 250 W (millijoules);
//   node-fr  Kepler 0.7: shop/web-2 10 W dynamic + 2 W idle;
//   DE 400 g/kWh, 350 from kSwitch; FR 50.
std::string MeteredOpenMetrics(absl::Time start) {
  struct Series {
    std::string family, labels;
    double watts;  // its value is watts × s (or the intensity)
  };
  const std::vector<Series> series = {
      {"kepler_container_cpu_joules_total",
       R"(container_id="c1",container_name="app",node_name="node-de",pod_id="p1",state="running",zone="package")",
       20},
      {"kepler_container_cpu_joules_total",
       R"(container_id="c3",container_name="main",node_name="node-de",pod_id="p3",state="running",zone="package")",
       30},
      {"kepler_container_gpu_joules_total",
       R"(container_id="c3",container_name="main",node_name="node-de",pod_id="p3",state="running")",
       240},
      {"kepler_pod_cpu_joules_total",
       R"(node_name="node-de",pod_id="p1",pod_name="web-1",pod_namespace="shop",state="running",zone="package")",
       20},
      {"kepler_pod_cpu_joules_total",
       R"(node_name="node-de",pod_id="p3",pod_name="train-1",pod_namespace="ml",state="running",zone="package")",
       30},
      {"kepler_container_joules_total",
       R"(container_name="app",container_namespace="shop",instance="node-fr",mode="dynamic",pod_name="web-2")",
       10},
      {"kepler_container_joules_total",
       R"(container_name="app",container_namespace="shop",instance="node-fr",mode="idle",pod_name="web-2")",
       2},
      {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
       R"(Hostname="node-de",container="main",gpu="0",namespace="ml",pod="train-1")", 250'000},
  };
  std::string text;
  std::string typed;
  auto type = [&](const std::string& family) {
    if (typed != family) absl::StrAppend(&text, "# TYPE ", family, " gauge\n");
    typed = family;
  };
  const int samples = 40 * 4;
  for (const Series& s : series) {
    type(s.family);
    for (int i = 0; i <= samples; ++i) {
      absl::StrAppend(&text, s.family, "{", s.labels, "} ", s.watts * 15 * i, " ",
                      absl::ToUnixSeconds(start) + 15 * i, "\n");
    }
  }
  type("carbonroute_node_info");
  for (const char* labels :
       {R"(location="DE",node="node-de")", R"(location="FR",node="node-fr")"}) {
    for (int i = 0; i <= samples; ++i) {
      absl::StrAppend(&text, "carbonroute_node_info{", labels, "} 1 ",
                      absl::ToUnixSeconds(start) + 15 * i, "\n");
    }
  }
  type("carbonroute_carbon_intensity_grams_per_kilowatt_hour");
  for (const char* location : {"DE", "FR"}) {
    for (int i = 0; i <= samples; ++i) {
      const absl::Duration at = absl::Seconds(15 * i);
      const double grams = std::string(location) == "FR" ? 50 : (at >= kSwitch ? 350 : 400);
      absl::StrAppend(&text, "carbonroute_carbon_intensity_grams_per_kilowatt_hour{",
                      "emissions_type=\"average\",location=\"", location, "\"} ", grams, " ",
                      absl::ToUnixSeconds(start) + 15 * i, "\n");
    }
  }
  return text + "# EOF\n";
}

// The shipped rules whose record is one of `records`, as a rules file.
std::string RulesRecording(const std::vector<std::string>& records) {
  const YAML::Node shipped = YAML::LoadFile(
      absl::StrCat(CARBONROUTE_SOURCE_DIR, "/deploy/prometheus/carbonroute-emissions.yaml"));
  YAML::Node group = YAML::Clone(shipped["groups"][0]);
  YAML::Node kept(YAML::NodeType::Sequence);
  for (const YAML::Node& rule : group["rules"]) {
    const std::string record = rule["record"].as<std::string>();
    if (std::find(records.begin(), records.end(), record) != records.end()) kept.push_back(rule);
  }
  group["rules"] = kept;
  YAML::Node file;
  file["groups"].push_back(group);
  return YAML::Dump(file);
}

class LedgerKepler : public ::testing::Test {
 protected:
  // Prometheus on the blocks in dir_/tsdb (started again to read new ones).
  void StartPrometheus() {
    prometheus_.reset();
    prometheus_ = testing::StartPrometheus(dir_.path(), 0, {});
    port_ = testing::PrometheusPort(*prometheus_);
    ASSERT_GT(port_, 0) << prometheus_->Log();
    ASSERT_TRUE(testing::WaitFor(
        [&] {
          int status = 0;
          testing::HttpGet(port_, "/-/ready", &status);
          return status == 200;
        },
        absl::Seconds(60)))
        << testing::Shell("cat " + dir_.File("prometheus.log")).output;
  }
  // Evaluates the shipped rules recording `records` over [from, to] into new
  // blocks, and restarts Prometheus on them.
  void Backfill(const std::vector<std::string>& records, absl::Time from, absl::Time to,
                const std::string& name) {
    // One file for every level: Prometheus runs a group at a phase of its
    // interval hashed from its name and file, and the levels must share it
    // (as the rules of one group do, evaluated one after the other at one time).
    { std::ofstream(dir_.File("rules.yaml")) << RulesRecording(records); }
    const testing::ShellRun run = testing::Shell(
        absl::StrCat("promtool tsdb create-blocks-from rules --start=", absl::ToUnixSeconds(from),
                     " --end=", absl::ToUnixSeconds(to), " --url=http://127.0.0.1:", port_,
                     " --output-dir=", dir_.File(name), " ", dir_.File("rules.yaml"), " 2>&1"));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    for (const auto& block : std::filesystem::directory_iterator(dir_.File(name))) {
      std::filesystem::rename(block.path(),
                              dir_.File("tsdb") + "/" + block.path().filename().string());
    }
    StartPrometheus();
  }
  Json Query(const std::string& promql, absl::Time at) const {
    const std::string body =
        testing::HttpGet(port_, absl::StrCat("/api/v1/query?query=", net::UrlEncode(promql),
                                             "&time=", absl::ToUnixSeconds(at)));
    return Json::parse(body)["data"]["result"];
  }

  testing::ScopedTempDir dir_;
  int port_ = 0;
  std::unique_ptr<testing::Subprocess> prometheus_;
};

std::shared_ptr<const placement::PlacementModel> ModelAt(absl::Duration since_start) {
  placement::PlacementFacts facts;
  facts.nodes = {{"node-de", {"DE", "europe-west3"}}, {"node-fr", {"FR", "europe-west9"}}};
  facts.carbon["DE"].grams_per_kwh = since_start >= kSwitch ? 350 : 400;
  facts.carbon["FR"].grams_per_kwh = 50;
  return std::make_shared<const placement::PlacementModel>(facts);
}

TEST_F(LedgerKepler, TheLedgersGramsAgreeWithTheEmissionsRules) {
  ASSERT_TRUE(std::filesystem::exists(testing::kPrometheusBinary))
      << "install Debian's prometheus package (./scripts/test does)";
  // Three hours ago, on the hour: inside Prometheus' retention, outside its head block.
  const absl::Time start =
      absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()) / 3600 * 3600) - absl::Hours(3);
  { std::ofstream(dir_.File("metered.om")) << MeteredOpenMetrics(start); }
  const testing::ShellRun backfill =
      testing::Shell(absl::StrCat("promtool tsdb create-blocks-from openmetrics ",
                                  dir_.File("metered.om"), " ", dir_.File("tsdb"), " 2>&1"));
  ASSERT_EQ(backfill.exit_code, 0) << backfill.output;
  StartPrometheus();
  ASSERT_EQ(
      testing::WaitForSeries(port_, "last_over_time(kepler_pod_cpu_joules_total[6h])", 2).size(),
      2u);
  // The rules' chain, a level at a time: energy and intensities, then grams.
  const absl::Time to = start + absl::Minutes(40);
  Backfill({"node:carbonroute_carbon_intensity_grams_per_kilowatt_hour:avg",
            ledger::kWorkloadEnergyRecord},
           start + absl::Minutes(1), to, "energy");
  Backfill({"node_namespace_pod_container:carbonroute_emissions_grams:increase1m"},
           start + absl::Minutes(1), to, "grams");
  ASSERT_FALSE(testing::WaitForSeries(
                   port_,
                   "last_over_time(node_namespace_pod_container:carbonroute_emissions_grams:"
                   "increase1m[6h])",
                   5)
                   .empty())
      << testing::Shell("cat " + dir_.File("prometheus.log")).output;

  // The ledger, from 2 minutes in, refreshing every 45 s through serve's reader;
  // the three Pods bound at 5 minutes; booked up to 35 minutes.
  prometheus::Registry registry;
  ledger::Ledger ledger(registry);
  const absl::Time started = start + absl::Minutes(2);
  extender::PodLedger pods(ledger, {.longest_interval = absl::Minutes(10)}, started);
  ledger::MeterWindow window(started, absl::Minutes(10));
  model_sources::ModelSources sources;
  sources.prometheus_url = absl::StrCat("http://127.0.0.1:", port_);
  absl::StatusOr<std::unique_ptr<net::CurlHttpClient>> http =
      net::CurlHttpClient::Create("carbonroute-test");
  ASSERT_TRUE(http.ok()) << http.status();
  const absl::Time bound = start + absl::Minutes(5);
  const absl::Time end = start + absl::Minutes(35);
  for (absl::Time now = started + absl::Seconds(45); now <= end; now += absl::Seconds(45)) {
    const std::optional<ledger::MeteredPods> metered =
        extender::ReadMeteredEnergy(window, sources, **http, now);
    ASSERT_TRUE(metered.has_value()) << "at " << absl::FormatTime(now);
    pods.Accrue(ModelAt(now - start).get(), now, &*metered);
    if (now != bound) continue;
    for (const auto& [uid, pod, namespace_name, node] :
         std::vector<std::tuple<std::string, std::string, std::string, std::string>>{
             {"u1", "web-1", "shop", "node-de"},
             {"u2", "web-2", "shop", "node-fr"},
             {"u3", "train-1", "ml", "node-de"}}) {
      pods.Scored({.uid = uid,
                   .namespace_name = namespace_name,
                   .name = pod,
                   .scheduler_name = "carbonroute",
                   .candidate_locations = {{"DE", 1}, {"FR", 1}},
                   .from_filter = true},
                  now);
      pods.Observed({.uid = uid,
                     .namespace_name = namespace_name,
                     .name = pod,
                     .scheduler_name = "carbonroute",
                     .node = node,
                     .requests = kube::PodRequests{.cpu_cores = 1},
                     .scheduled_at = now},
                    ModelAt(now - start).get(), now);
    }
  }

  // Energy over (5 min, 35 min]: Kepler (20 + 12 + 30 W) × 1,800 s; DCGM
  // 250 W × 1,800 s, in place of Kepler's 240 W for the same GPU; no model.
  EXPECT_NEAR(testing::CounterValue(registry, "carbonroute_ledger_energy_joules_total",
                                    {{"energy_source", "kepler"}}),
              62 * 1800, 1e-6);
  EXPECT_NEAR(testing::CounterValue(registry, "carbonroute_ledger_energy_joules_total",
                                    {{"energy_source", "dcgm"}}),
              250 * 1800, 1e-6);
  EXPECT_TRUE(std::isnan(testing::CounterValue(registry, "carbonroute_ledger_energy_joules_total",
                                               {{"energy_source", "model"}})));

  // The rules' grams for the same half hour, per namespace, meter and component.
  const Json rules = Query(
      "sum by (namespace, meter, component) (sum_over_time("
      "node_namespace_pod_container:carbonroute_emissions_grams:increase1m[1799999ms]))",
      end);
  std::map<std::string, double> rule_grams;  // namespace → grams, Kepler's GPU left out
  for (const Json& sample : rules) {
    const Json& labels = sample["metric"];
    if (labels.value("meter", "") == "kepler" && labels.value("component", "") == "gpu") continue;
    rule_grams[labels.value("namespace", "")] += std::stod(sample["value"][1].get<std::string>());
  }
  // By hand. Prometheus runs a group's rules at a phase of its interval derived
  // from the group's name and file (random here): read it back. A rule minute
  // at T is priced by the rules at Germany's intensity at T, by the ledger at
  // the end of the 45 s window that reads it: with the switch between the two,
  // the ledger has one minute more at 350.
  const Json stamp =
      Query(absl::StrCat("timestamp(", ledger::kWorkloadEnergyRecord, "{pod=\"web-1\"})"),
            start + absl::Minutes(10));
  ASSERT_EQ(stamp.size(), 1u) << stamp;
  const double phase = std::fmod(
      std::stod(stamp[0]["value"][1].get<std::string>()) - absl::ToUnixSeconds(start), 60);
  int rules_at_400 = 0, ledger_at_400 = 0, minutes = 0;
  for (int k = 0; k <= 40; ++k) {
    const double t = k * 60 + phase;  // seconds since start
    if (t <= 300 || t > 2100) continue;
    ++minutes;
    const double read_at = 120 + std::ceil((t - 120) / 45) * 45;
    rules_at_400 += t < absl::ToDoubleSeconds(kSwitch);
    ledger_at_400 += read_at < absl::ToDoubleSeconds(kSwitch);
  }
  ASSERT_EQ(minutes, 30);
  std::printf(
      "  rules ran %.3f s into each minute: %d minutes at 400 by the rules, %d by the ledger\n",
      phase, rules_at_400, ledger_at_400);
  // shop: web-1 1,200 J a minute in Germany and web-2 720 J a minute at 50;
  // ml: train-1 1,800 (CPU) + 15,000 (DCGM) J a minute in Germany.
  auto germany = [](int at_400) { return at_400 * 400.0 + (30 - at_400) * 350.0; };
  const std::map<std::string, std::pair<double, double>> by_hand = {
      {"shop",
       {(1200 * germany(rules_at_400) + 720 * 30 * 50) / 3.6e6,
        (1200 * germany(ledger_at_400) + 720 * 30 * 50) / 3.6e6}},
      {"ml", {16'800 * germany(rules_at_400) / 3.6e6, 16'800 * germany(ledger_at_400) / 3.6e6}}};
  for (const auto& [namespace_name, expected] : by_hand) {
    const double ledger_grams =
        testing::CounterValue(registry, "carbonroute_ledger_emissions_grams_total",
                              {{"namespace", namespace_name}, {"basis", "chosen"}});
    EXPECT_NEAR(rule_grams[namespace_name], expected.first, 1e-6) << namespace_name;
    EXPECT_NEAR(ledger_grams, expected.second, 1e-6) << namespace_name;
    const double gap =
        std::abs(ledger_grams - rule_grams[namespace_name]) / rule_grams[namespace_name];
    EXPECT_LT(gap, 0.01) << namespace_name;
    std::printf("  %s: ledger %.4f g, rules %.4f g: %.2f %% apart\n", namespace_name.c_str(),
                ledger_grams, rule_grams[namespace_name], 100 * gap);
  }
  // What `hold --prometheus` asks of a run (its PrometheusPodsMeter): train-1's minutes from 5 to
  // 35 minutes, read 2 minutes after (so 32 of them): 1,800 J of CPU and 15,000 J of GPU each.
  const ledger::PodsMeter meter =
      model_sources::PrometheusPodsMeter(**http, sources.prometheus_url, {});
  auto run = [&](const std::string& namespace_name, const std::string& pod_pattern) {
    absl::StatusOr<std::vector<ledger::PodEnergy>> energy =
        meter(namespace_name, pod_pattern, bound, end);
    EXPECT_TRUE(energy.ok()) << energy.status();
    return energy.ok() ? *std::move(energy) : std::vector<ledger::PodEnergy>{};
  };
  const std::vector<ledger::PodEnergy> train = run("ml", ledger::RunPods(false, "train-1"));
  ASSERT_EQ(train.size(), 2u);
  EXPECT_NEAR(train[0].joules, 32 * 1800, 1e-6);
  EXPECT_EQ(train[0].source, ledger::EnergySource::kKepler);
  EXPECT_NEAR(train[1].joules, 32 * 15'000, 1e-6);
  EXPECT_EQ(train[1].source, ledger::EnergySource::kDcgm);
  // A Job named "web" has Pods web-<5 characters>: web-1 is not one of them.
  EXPECT_TRUE(run("shop", ledger::RunPods(true, "web")).empty());
  EXPECT_EQ(run("shop", ledger::RunPods(true, "web-1")).size(), 0u);
  EXPECT_EQ(run("shop", ledger::RunPods(false, "web-1")).size(), 1u);
}

}  // namespace
}  // namespace carbonroute
