#include "config/load_collector_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/data_files.h"
#include "contract/region_locations.h"
#include "test/testing/build_paths.h"
#include "test/testing/status_matchers.h"

namespace carbonroute {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::IsOkAndHolds;
using testing::StatusIs;

constexpr char kMinimal[] = R"yaml(
node: {name: n1}
providers:
  - type: replay
    locations: [DE]
)yaml";

absl::StatusOr<CollectorConfig> Parse(const std::string& yaml) {
  return ParseCollectorConfig(yaml, "test.yaml");
}

TEST(LoadCollectorConfig, MinimalConfigGetsDefaults) {
  absl::StatusOr<CollectorConfig> config = Parse(kMinimal);
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->listen_address, "127.0.0.1:9464");
  EXPECT_EQ(config->node.name, "n1");
  EXPECT_EQ(config->poll.interval, absl::Seconds(60));
  EXPECT_EQ(config->poll.forecast_horizon, absl::Hours(24));
  EXPECT_EQ(config->poll.concurrent_locations, 4);
  ASSERT_EQ(config->providers.size(), 1u);
  EXPECT_EQ(config->providers[0].name, "replay");
  EXPECT_EQ(config->providers[0].type, ProviderType::kReplay);
  EXPECT_EQ(config->providers[0].replay.trace, "carbon-intensity-2022-hourly.csv");
  EXPECT_THAT(config->providers[0].locations, ::testing::ElementsAre("DE"));
}

TEST(LoadCollectorConfig, KubernetesDiscoveryAndPeerSelection) {
  absl::StatusOr<CollectorConfig> config = Parse(kMinimal);
  ASSERT_THAT(config, IsOk());
  EXPECT_FALSE(config->rtt.kubernetes.enabled);
  EXPECT_EQ(config->rtt.peer_selection.mode, PeerSelectionMode::kAuto);

  config = Parse(std::string(kMinimal) + "rtt: {discovery: {kubernetes: {}}}\n");
  ASSERT_THAT(config, IsOk());
  EXPECT_TRUE(config->rtt.kubernetes.enabled);  // present, even empty: on, with defaults
  EXPECT_EQ(config->rtt.kubernetes.page_size, 500);
  EXPECT_EQ(config->rtt.kubernetes.protocol, ProbeProtocol::kIcmp);

  config = Parse(R"yaml(
node: {name: n1, zone: europe-west1-b}
providers: [{type: replay, locations: [DE]}]
rtt:
  discovery:
    kubernetes:
      api_url: http://127.0.0.1:8001
      label_selector: carbonroute.io/probe!=false
      protocol: tcp
      port: 10250
      page_size: 100
      watch_timeout: 2m
  peer_selection: {mode: sampled, same_zone: 3, per_remote_zone: 1}
)yaml");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->node.zone, "europe-west1-b");
  const KubernetesDiscoveryConfig& kube = config->rtt.kubernetes;
  EXPECT_EQ(kube.api_url, "http://127.0.0.1:8001");
  EXPECT_EQ(kube.label_selector, "carbonroute.io/probe!=false");
  EXPECT_EQ(kube.protocol, ProbeProtocol::kTcp);
  EXPECT_EQ(kube.port, 10250);
  EXPECT_EQ(kube.page_size, 100);
  EXPECT_EQ(kube.watch_timeout, absl::Minutes(2));
  EXPECT_EQ(config->rtt.peer_selection.mode, PeerSelectionMode::kSampled);
  EXPECT_EQ(config->rtt.peer_selection.same_zone, 3);
  EXPECT_EQ(config->rtt.peer_selection.per_remote_zone, 1);

  EXPECT_THAT(
      Parse(std::string(kMinimal) + "rtt: {discovery: {kubernetes: {watch_timeout: 500ms}}}\n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("rtt.discovery.kubernetes.watch_timeout: must be at least 1s")));
  EXPECT_THAT(
      Parse(std::string(kMinimal) + "rtt: {discovery: {kubernetes: {port: 80}}}\n"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("only tcp peers have a port")));
  EXPECT_THAT(Parse(std::string(kMinimal) + "rtt: {discovery: {consul: {}}}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rtt.discovery.consul")));
}

// Messages echo what the user wrote and say where.
TEST(LoadCollectorConfig, MessagesEchoWhatWasWrittenAndSayWhere) {
  EXPECT_THAT(Parse(std::string(kMinimal) + "poll: {interval: -60s}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("poll.interval: must be positive, got \"-60s\"")));
  EXPECT_THAT(Parse("node: {name: a, name: b}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("node.name: duplicated key, twice on line 1 (columns 8 and 17)")));
  EXPECT_THAT(Parse("node: {name: n1}\nproviders: [{type: replay, locations: [DE, FR, DE]}]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("providers[0].locations[2]: \"DE\" is listed twice (also at "
                                 "[0]); keep one")));
}

// The carbon role probes nobody: it needs no node name (no placeholder in its manifest).
TEST(LoadCollectorConfig, AConfigurationThatProbesNoPeerNeedsNoNodeName) {
  absl::StatusOr<CollectorConfig> config = Parse(
      "providers: [{type: replay, locations: [DE]}]\n"
      "rtt: {discovery: {kubernetes: {}}, peer_selection: {mode: none}}\n");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->node.name, "");
  EXPECT_FALSE(ProbesPeers(*config));
  EXPECT_THAT(Parse("providers: []\nrtt: {discovery: {kubernetes: {}}}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("node.name")));
}

// --node-name completes a file that has no node.name, before the check.
TEST(LoadCollectorConfig, TheCommandLinesNodeNameCountsAsNodeName) {
  const absl::StatusOr<CollectorConfig> config =
      ParseCollectorConfig("providers: [{type: replay, locations: [DE]}]\n", "test.yaml", "n7");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->node.name, "n7");
  EXPECT_THAT(
      ParseCollectorConfig("node: {name: n}\nproviders: []\n", "test.yaml", "from-the-flag"),
      IsOkAndHolds(::testing::Field(&CollectorConfig::node,
                                    ::testing::Field(&NodeConfig::name, "from-the-flag"))));
}

// Electricity Maps as its reference documents it in 2026: finer data asked for,
// estimates left out, a cloud data centre as a location, and the API version a
// setting the base URL follows (v3 unless v4 is asked for).
TEST(LoadCollectorConfig, ElectricityMapsGranularityEstimationsDataCentresAndVersion) {
  const std::string em = "node: {name: n}\nproviders:\n  - {type: electricity_maps, token: t, ";
  absl::StatusOr<CollectorConfig> config =
      Parse(em +
            "temporal_granularity: 5_minutes, disable_estimations: true, api_version: v4,\n"
            "     locations: [DE, \"gcp:europe-west1\", \"52.5,13.4\"]}\n");
  ASSERT_THAT(config, IsOk());
  const ProviderConfig& provider = config->providers[0];
  EXPECT_EQ(provider.electricity_maps.temporal_granularity, "5_minutes");
  EXPECT_TRUE(provider.electricity_maps.disable_estimations);
  EXPECT_EQ(provider.electricity_maps.api_version, "v4");
  EXPECT_EQ(provider.http.base_url, "https://api.electricitymaps.com/v4");

  config = Parse(em + "locations: [DE]}\n");  // the defaults: v3, nothing more asked for
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->providers[0].http.base_url, "https://api.electricitymaps.com/v3");
  EXPECT_EQ(config->providers[0].electricity_maps.temporal_granularity, "");
  EXPECT_FALSE(config->providers[0].electricity_maps.disable_estimations);
  // A base URL ending in a version follows api_version; a proxy's without one is kept.
  config = Parse(em + "base_url: http://127.0.0.1:9/v3/, api_version: v4, locations: [DE]}\n");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->providers[0].http.base_url, "http://127.0.0.1:9/v4");
  config = Parse(em + "base_url: http://proxy/em, api_version: v4, locations: [DE]}\n");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->providers[0].http.base_url, "http://proxy/em");

  for (const auto& [yaml, message] :
       {std::pair{em + "api_version: v5, locations: [DE]}\n",
                  "providers[0].api_version: unknown value \"v5\"; expected one of: v3, v4"},
        std::pair{em + "temporal_granularity: 1_minute, locations: [DE]}\n",
                  "providers[0].temporal_granularity: unknown value \"1_minute\"; expected one "
                  "of: 5_minutes, 15_minutes, hourly"},
        std::pair{em + "disable_estimations: yes, locations: [DE]}\n",
                  "providers[0].disable_estimations: expected true or false, got \"yes\""},
        std::pair{em + "locations: [\"gcp:\", DE, \":europe-west1\"]}\n",
                  "providers[0].locations: a data centre is \"PROVIDER:REGION\" such as "
                  "gcp:europe-west1, got [0] \"gcp:\", [2] \":europe-west1\""}}) {
    EXPECT_THAT(Parse(yaml),
                StatusIs(absl::StatusCode::kInvalidArgument, absl::StrCat("test.yaml: ", message)))
        << yaml;
  }
}

// An ordered fallback per location: providers of one emissions type, each named once, for
// locations the first polls and a later one too.
TEST(LoadCollectorConfig, AFallbackNamesProvidersOfOneEmissionsTypeInOrder) {
  const std::string providers =
      "node: {name: n}\nproviders:\n"
      "  - {type: electricity_maps, name: em, token: t, locations: [DE, FR]}\n"
      "  - {type: replay, name: trace, locations: [DE, FR, PL]}\n"
      "  - {type: static, name: marginal, emissions_type: marginal, values: {DE: 500}}\n";
  absl::StatusOr<CollectorConfig> config =
      Parse(providers + "fallback:\n  - {providers: [em, trace], locations: [DE]}\n");
  ASSERT_THAT(config, IsOk());
  ASSERT_EQ(config->poll.fallback.size(), 1u);
  EXPECT_THAT(config->poll.fallback[0].providers, ::testing::ElementsAre("em", "trace"));
  EXPECT_THAT(config->poll.fallback[0].locations, ::testing::ElementsAre("DE"));
  EXPECT_THAT(Parse(providers + "fallback: [{providers: [em, trace]}]\n"), IsOk());

  for (const auto& [fallback, message] :
       {std::pair{"[{providers: [em]}]",
                  "fallback[0].providers: name at least two providers, the preferred one first"},
        std::pair{"[{providers: [em, trcae]}]",
                  "fallback[0].providers[1]: no provider is named \"trcae\" (did you mean "
                  "trace?); the providers are: em, trace, marginal"},
        std::pair{"[{providers: [em, marginal]}]",
                  "fallback[0].providers[1]: \"marginal\" gives marginal emissions and \"em\" "
                  "average: a location's fallback never mixes marginal with average"},
        std::pair{"[{providers: [em, trace], locations: [PL]}]",
                  "fallback[0].locations[0]: \"PL\" is not a location of \"em\", the preferred "
                  "provider"},
        std::pair{"[{providers: [trace, em], locations: [PL]}]",
                  "fallback[0].locations[0]: \"PL\" is a location of none of the providers "
                  "after \"trace\": nothing to fall back to"},
        std::pair{"[{providers: [em, trace], locations: [DE]}, {providers: [trace, em], "
                  "locations: [DE]}]",
                  "fallback[1].locations[0]: \"DE\" already has a fallback "
                  "(fallback[0].locations[0])"},
        std::pair{"[{providers: [em, trace], order: first}]", "fallback[0].order: unknown key"}}) {
    EXPECT_THAT(Parse(absl::StrCat(providers, "fallback: ", fallback, "\n")),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         ::testing::StartsWith(absl::StrCat("test.yaml: ", message))))
        << fallback;
  }
}

// WattTime's other signals are refused saying what they are; coordinates off the
// globe are refused, every one of them at once.
TEST(LoadCollectorConfig, WattTimeSignalsAndCoordinatesAreSaidPlainly) {
  const std::string wt =
      "node: {name: n}\nproviders:\n  - {type: watttime, username: u, password: p, ";
  EXPECT_THAT(Parse(wt + "signal_type: co2_aoer, locations: [CAISO_NORTH]}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("providers[0].signal_type: co2_aoer (WattTime's average "
                                       "operating emissions rate) is hourly, historical only "
                                       "and has no forecast"),
                             HasSubstr("use a provider of type electricity_maps or "
                                       "uk_carbon_intensity"))));
  EXPECT_THAT(Parse(wt + "signal_type: health_damage, locations: [CAISO_NORTH]}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("in dollars per MWh"), HasSubstr("not gCO2eq/kWh"),
                             HasSubstr("neither reads nor exports it"))));
  EXPECT_THAT(Parse(wt + "signal_type: co2, locations: [CAISO_NORTH]}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "test.yaml: providers[0].signal_type: unknown value \"co2\"; expected one "
                       "of: co2_moer"));
  EXPECT_THAT(
      Parse(wt + "locations: [\"52.5,200\", CAISO_NORTH, \"42.37,-72.52\", \"-95,10\"]}\n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "test.yaml: providers[0].locations: coordinates must be \"latitude,longitude\" "
               "on the globe: [0] \"52.5,200\": longitude 200 is outside [-180, 180]; [3] "
               "\"-95,10\": latitude -95 is outside [-90, 90]"));
  EXPECT_THAT(Parse("node: {name: n}\nproviders:\n  - {type: electricity_maps, token: t, "
                    "locations: [\"91,0\"]}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("latitude 91 is outside")));
}

TEST(LoadCollectorConfig, PublishKedaConfigMapsWithTheOperatorsDefaults) {
  absl::StatusOr<CollectorConfig> config = Parse(std::string(kMinimal) + R"yaml(
publish:
  kubeconfig: /etc/kube.config
  keda_configmaps:
    - {location: eastus}
    - {location: DE, name: carbon-de, namespace: apps, key: forecast}
)yaml");
  ASSERT_THAT(config, IsOk());
  const PublishConfig& publish = config->publish;
  ASSERT_EQ(publish.keda_configmaps.size(), 2u);
  EXPECT_EQ(publish.keda_configmaps[0].name, "carbon-intensity");
  EXPECT_EQ(publish.keda_configmaps[0].namespace_name, "kube-system");
  EXPECT_EQ(publish.keda_configmaps[0].key, "data");
  EXPECT_EQ(publish.keda_configmaps[1].namespace_name, "apps");
  EXPECT_EQ(publish.kubeconfig, "/etc/kube.config");
  EXPECT_EQ(publish.lease_namespace, "kube-system");  // the first ConfigMap's
  EXPECT_EQ(publish.history, absl::Hours(24));
  EXPECT_TRUE(Parse(kMinimal)->publish.keda_configmaps.empty());

  struct Case {
    std::string yaml, says;
  };
  for (const Case& mistake : std::vector<Case>{
           {"publish: {keda_configmaps: [{name: x}]}",
            "publish.keda_configmaps[0].location: required"},
           {"publish: {keda_configmaps: [{location: DE, name: Carbon_Intensity}]}",
            "publish.keda_configmaps[0].name: \"Carbon_Intensity\" is not a Kubernetes name"},
           {"publish: {keda_configmaps: [{location: DE, key: 'a/b'}]}",
            "publish.keda_configmaps[0].key: \"a/b\" is not a ConfigMap key"},
           {"publish: {keda_configmaps: [{location: DE}, {location: FR}]}",
            "publish.keda_configmaps[1]: ConfigMap kube-system/carbon-intensity key data is "
            "written twice"},
           {"publish: {keda_configmap: []}", "keda_configmap"},
           {"publish: {api_url: 127.0.0.1:8001, keda_configmaps: [{location: DE}]}",
            "publish.api_url: expected an http:// or https:// URL"},
           {"publish: {keda_configmaps: [{location: DE}], lease: {duration: 0s}}",
            "publish.lease.duration"},
       }) {
    EXPECT_THAT(Parse(std::string(kMinimal) + mistake.yaml + "\n"),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(mistake.says)))
        << mistake.yaml;
  }
}

TEST(LoadCollectorConfig, NoProvidersIsTheLatencyRole) {
  for (const char* providers : {"", "providers: []\n"}) {
    absl::StatusOr<CollectorConfig> config = Parse(absl::StrCat("node: {name: n1}\n", providers));
    ASSERT_THAT(config, IsOk()) << providers;
    EXPECT_TRUE(config->providers.empty());
  }
}

TEST(LoadCollectorConfig, CarbonRoleLocationsFromNodesAndLimits) {
  absl::StatusOr<CollectorConfig> config = Parse(R"yaml(
node: {name: n1}
rtt:
  discovery: {kubernetes: {api_url: "http://127.0.0.1:8001"}}
  peer_selection: {mode: none}
providers:
  - type: watttime
    username: {env: WT_USER}
    password: {env: WT_PASS}
    locations: nodes
    account_shared_by: 2
  - type: electricity_maps
    token: {env: EM_TOKEN}
    locations: nodes
    monthly_budget: 30000
  - {type: replay, locations: nodes}
)yaml");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->rtt.peer_selection.mode, PeerSelectionMode::kNone);
  ASSERT_EQ(config->providers.size(), 3u);
  for (const ProviderConfig& provider : config->providers) {
    EXPECT_TRUE(provider.locations_from_nodes) << provider.name;
    EXPECT_TRUE(provider.locations.empty()) << provider.name;
  }
  EXPECT_EQ(config->providers[0].limits.account_shared_by, 2);
  EXPECT_EQ(config->providers[1].limits.account_shared_by, 1);
  EXPECT_EQ(config->providers[1].limits.monthly_budget, 30000);
}

TEST(LoadCollectorConfig, ShippedExampleIsValid) {
  absl::StatusOr<CollectorConfig> config =
      LoadCollectorConfig(std::string(CARBONROUTE_SOURCE_DIR) + "/config/examples/offline.yaml");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->listen_address, "127.0.0.1:9464");
  ASSERT_EQ(config->providers.size(), 2u);
  EXPECT_EQ(config->providers[1].type, ProviderType::kStatic);
  EXPECT_EQ(config->providers[1].static_values.grams_per_kwh.at("onprem-hydro"), 24);
  EXPECT_THAT(config->providers[1].locations, ::testing::ElementsAre("onprem-hydro"));
}

// The demo shows the latency half too: a peer it measures on this machine
// (TCP connect over loopback: no privileges) and peers the shipped matrix declares.
TEST(LoadCollectorConfig, TheDemoMeasuresALoopbackPeerAndDeclaresOthers) {
  absl::StatusOr<CollectorConfig> config =
      LoadCollectorConfig(std::string(CARBONROUTE_SOURCE_DIR) + "/config/examples/offline.yaml");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->rtt.static_matrix, "gcp-inter-region-latency-ms.csv");
  int measured = 0, declared = 0;
  for (const PeerConfig& peer : config->rtt.peers) {
    if (peer.address.empty()) {
      declared += !peer.region.empty();
      continue;
    }
    EXPECT_TRUE(absl::StartsWith(peer.address, "127.")) << peer.name;
    EXPECT_EQ(peer.protocol, ProbeProtocol::kTcp) << peer.name;
    ++measured;
  }
  EXPECT_GE(measured, 1);
  EXPECT_GE(declared, 3);
}

TEST(LoadCollectorConfig, TheDemoReplaysTheZoneOfEveryRegionTheTraceHas) {
  // `rank --candidates regions` in the README's quick start: every region whose
  // zone the trace has must have a reading in the demo.
  const std::string data = std::string(CARBONROUTE_SOURCE_DIR) + "/data/";
  absl::StatusOr<CollectorConfig> config =
      LoadCollectorConfig(std::string(CARBONROUTE_SOURCE_DIR) + "/config/examples/offline.yaml");
  ASSERT_THAT(config, IsOk());
  const std::vector<std::string>& replayed = config->providers[0].locations;
  std::string header;
  std::getline(std::ifstream(data + "carbon-intensity-2022-hourly.csv"), header);
  const std::vector<std::string> columns = absl::StrSplit(header, ',');
  absl::StatusOr<std::map<std::string, std::string, std::less<>>> regions =
      ParseRegionLocationsCsv(*ReadFileToString(data + "cloud-regions.csv", "zones"), "zones");
  ASSERT_THAT(regions, IsOk());
  int covered = 0;
  for (const auto& [region, zone] : *regions) {
    if (std::find(columns.begin(), columns.end(), zone) == columns.end()) continue;
    EXPECT_NE(std::find(replayed.begin(), replayed.end(), zone), replayed.end())
        << region << " → " << zone;
    ++covered;
  }
  EXPECT_EQ(covered, 141);  // the README's count
}

TEST(LoadCollectorConfig, InstalledExampleIsValid) {
  absl::StatusOr<CollectorConfig> config =
      LoadCollectorConfig(std::string(CARBONROUTE_SOURCE_DIR) + "/config/examples/collector.yaml");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->database, "/var/lib/carbonroute/readings.sqlite");
  EXPECT_THAT(config->providers[0].locations, ::testing::ElementsAre("*"));
}

TEST(LoadCollectorConfig, LiveExampleIsValid) {
  absl::StatusOr<CollectorConfig> config =
      LoadCollectorConfig(std::string(CARBONROUTE_SOURCE_DIR) + "/config/examples/live.yaml");
  ASSERT_THAT(config, IsOk());
  ASSERT_EQ(config->providers.size(), 3u);
  EXPECT_EQ(config->providers[0].watttime.password.reference, "watttime-password");
}

TEST(LoadCollectorConfig, StaticProviderSettings) {
  absl::StatusOr<CollectorConfig> config = Parse(R"yaml(
node: {name: n1, region: europe-west1, location: BE}
poll: {interval: 30s, forecast_horizon: 48h, retention: 24h}
providers:
  - {type: static, name: contract, emissions_type: marginal, validity: 30m, values: {A: 10.5, B: 0}}
)yaml");
  ASSERT_THAT(config, IsOk());
  const ProviderConfig& p = config->providers[0];
  EXPECT_EQ(p.name, "contract");
  EXPECT_EQ(p.static_values.emissions_type, EmissionsType::kMarginal);
  EXPECT_EQ(p.static_values.validity, absl::Minutes(30));
  EXPECT_EQ(p.static_values.grams_per_kwh.at("A"), 10.5);
  EXPECT_THAT(p.locations, ::testing::ElementsAre("A", "B"));
  EXPECT_EQ(config->poll.interval, absl::Seconds(30));
  EXPECT_EQ(config->node.region, "europe-west1");
}

TEST(LoadCollectorConfig, LiveProvidersWithSecretReferences) {
  absl::StatusOr<CollectorConfig> config = Parse(R"yaml(
node: {name: n1}
poll: {grace: 45m, backoff_initial: 10s, backoff_max: 10m, config_error_retry: 2h, concurrent_locations: 8}
providers:
  - type: watttime
    username: {env: WATTTIME_USERNAME}
    password: {credential: watttime-password}
    data: signal_index
    locations: [CAISO_NORTH, "42.37,-72.52"]
  - type: electricity_maps
    token: {file: /etc/carbonroute/em-token}
    auth_header: X-BLOBR-KEY
    base_url: https://api-access.electricitymaps.com/free-tier/
    emission_factor_type: direct
    timeout: 5s
    locations: [DE]
  - type: uk_carbon_intensity
    locations: [national, region/13]
)yaml");
  ASSERT_THAT(config, IsOk());
  const ProviderConfig& wt = config->providers[0];
  EXPECT_EQ(wt.type, ProviderType::kWattTime);
  EXPECT_EQ(wt.http.base_url, "https://api.watttime.org");
  EXPECT_EQ(wt.watttime.username.source, SecretRef::Source::kEnv);
  EXPECT_EQ(wt.watttime.username.reference, "WATTTIME_USERNAME");
  EXPECT_EQ(wt.watttime.password.source, SecretRef::Source::kCredential);
  EXPECT_EQ(wt.watttime.data, "signal_index");
  const ProviderConfig& em = config->providers[1];
  EXPECT_EQ(em.http.base_url,
            "https://api-access.electricitymaps.com/free-tier");  // trailing / dropped
  EXPECT_EQ(em.electricity_maps.token.source, SecretRef::Source::kFile);
  EXPECT_EQ(em.electricity_maps.auth_header, "X-BLOBR-KEY");
  EXPECT_EQ(em.http.timeout, absl::Seconds(5));
  EXPECT_EQ(config->providers[2].http.base_url, "https://api.carbonintensity.org.uk");
  EXPECT_EQ(config->poll.grace, absl::Minutes(45));
  EXPECT_EQ(config->poll.config_error_retry, absl::Hours(2));
  EXPECT_EQ(config->poll.concurrent_locations, 8);
}

TEST(LoadCollectorConfig, LiteralSecretIsNeverQuotedInErrors) {
  absl::StatusOr<CollectorConfig> config = Parse(R"yaml(
node: {name: n1}
providers:
  - {type: watttime, username: u, password: "hunter2-SECRET", data: everything, locations: [X]}
)yaml");
  EXPECT_THAT(config,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "test.yaml: providers[0].data: unknown value \"everything\"; expected one "
                       "of: forecast, signal_index"));
  EXPECT_THAT(std::string(config.status().message()), ::testing::Not(HasSubstr("hunter2")));
}

struct BadConfigCase {
  const char* name;
  const char* yaml;
  const char* message;
};

class BadConfigTest : public ::testing::TestWithParam<BadConfigCase> {};

TEST_P(BadConfigTest, NamesKeyPathAndValue) {
  EXPECT_THAT(Parse(GetParam().yaml), StatusIs(absl::StatusCode::kInvalidArgument,
                                               ::testing::StartsWith(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(
    Errors, BadConfigTest,
    ::testing::Values(
        BadConfigCase{"UnknownTopLevelKey", "node: {name: n}\nprovidres: []\n",
                      "test.yaml: providres: unknown key; did you mean providers?"},
        BadConfigCase{"UnknownKeyNearAKnownOne", "node: {name: n}\npoll: {intervall: 60s}\n",
                      "test.yaml: poll.intervall: unknown key; did you mean interval?"},
        BadConfigCase{"UnknownKeyNearNone", "node: {name: n}\npoll: {cadence: 60s}\n",
                      "test.yaml: poll.cadence: unknown key"},
        BadConfigCase{
            "UnknownNestedKey",
            "node: {name: n}\nproviders:\n  - {type: replay, locations: [DE], trcae: x}\n",
            "test.yaml: providers[0].trcae: unknown key"},
        BadConfigCase{"UnknownProviderType",
                      "node: {name: n}\nproviders:\n  - {type: replay, locations: [DE]}\n  - "
                      "{type: wattime}\n",
                      "test.yaml: providers[1].type: unknown provider type \"wattime\"; expected "
                      "one of: replay, static"},
        BadConfigCase{"MissingNodeNameWhilePeersAreProbed",
                      "node: {region: x}\nrtt: {peers: [{name: p, address: 127.0.0.1}]}\n"
                      "providers: [{type: replay, locations: [DE]}]\n",
                      "test.yaml: node.name: required key is missing: this configuration probes "
                      "peers"},
        // Nothing probed, but carbonroute_node_info would name no node (node="").
        BadConfigCase{"MissingNodeWhileNodeInfoIsExported",
                      "providers: [{type: replay, locations: [DE]}]\n",
                      "test.yaml: node.name: required key is missing: carbonroute_node_info "
                      "names this node"},
        BadConfigCase{"MissingProviderType", "node: {name: n}\nproviders: [{locations: [DE]}]\n",
                      "test.yaml: providers[0].type: required key is missing"},
        BadConfigCase{"NodesWithoutDiscovery",
                      "node: {name: n}\nproviders: [{type: replay, locations: nodes}]\n",
                      "test.yaml: providers[0].locations: \"nodes\" needs "
                      "rtt.discovery.kubernetes"},
        BadConfigCase{"NodesForUk",
                      "node: {name: n}\nrtt: {discovery: {kubernetes: {}}}\nproviders: [{type: "
                      "uk_carbon_intensity, locations: nodes}]\n",
                      "test.yaml: providers[0].locations: expected a list, got \"nodes\""},
        BadConfigCase{"SharedByZero",
                      "node: {name: n}\nproviders: [{type: watttime, username: u, password: p, "
                      "locations: [CAISO_NORTH], account_shared_by: 0}]\n",
                      "test.yaml: providers[0].account_shared_by: must be a whole number between "
                      "1 and 1000, got 0"},
        BadConfigCase{"BudgetOnWattTime",
                      "node: {name: n}\nproviders: [{type: watttime, username: u, password: p, "
                      "locations: [CAISO_NORTH], monthly_budget: 100}]\n",
                      "test.yaml: providers[0].monthly_budget"},
        BadConfigCase{
            "BadDuration",
            "node: {name: n}\npoll: {interval: 5 minutes}\nproviders: [{type: replay, locations: "
            "[DE]}]\n",
            "test.yaml: poll.interval: expected a duration such as \"90s\", \"1h\" or \"7d\", got "
            "\"5 minutes\""},
        BadConfigCase{
            "NonPositiveInterval",
            "node: {name: n}\npoll: {interval: 0s}\nproviders: [{type: replay, locations: [DE]}]\n",
            "test.yaml: poll.interval: must be positive, got \"0s\""},
        BadConfigCase{
            "HorizonTooLong",
            "node: {name: n}\npoll: {forecast_horizon: 400h}\nproviders: [{type: replay, "
            "locations: [DE]}]\n",
            "test.yaml: poll.forecast_horizon: must be between 0s and 192h, got \"400h\""},
        BadConfigCase{
            "BadListenAddress", "listen_address: localhost\nnode: {name: n}\n",
            "test.yaml: listen_address: expected host:port such as \"127.0.0.1:9464\", got "
            "\"localhost\""},
        BadConfigCase{
            "BadPort", "listen_address: \"127.0.0.1:99999\"\nnode: {name: n}\n",
            "test.yaml: listen_address: expected host:port such as \"127.0.0.1:9464\", got "
            "\"127.0.0.1:99999\""},
        BadConfigCase{
            "BadLogLevel", "log_level: loud\nnode: {name: n}\n",
            "test.yaml: log_level: unknown level \"loud\"; expected one of: trace, debug, "
            "info, warn, error, off"},
        BadConfigCase{"EmptyReplayLocations", "node: {name: n}\nproviders: [{type: replay}]\n",
                      "test.yaml: providers[0].locations: list at least one grid zone"},
        BadConfigCase{
            "LocationsNotAList", "node: {name: n}\nproviders: [{type: replay, locations: DE}]\n",
            "test.yaml: providers[0].locations: expected a list of locations or \"nodes\", "
            "got \"DE\""},
        BadConfigCase{"DuplicateProviderName",
                      "node: {name: n}\nproviders:\n  - {type: replay, locations: [DE]}\n  - "
                      "{type: replay, locations: [FR]}\n",
                      "test.yaml: providers[1].name: duplicate provider name \"replay\""},
        BadConfigCase{"StaticWithoutValues", "node: {name: n}\nproviders: [{type: static}]\n",
                      "test.yaml: providers[0].values: required key is missing"},
        BadConfigCase{"StaticNegativeValue",
                      "node: {name: n}\nproviders: [{type: static, values: {DE: -3}}]\n",
                      "test.yaml: providers[0].values.DE: gCO2eq/kWh must not be negative, got -3"},
        BadConfigCase{"StaticNonNumber",
                      "node: {name: n}\nproviders: [{type: static, values: {DE: lots}}]\n",
                      "test.yaml: providers[0].values.DE: expected a finite number, got \"lots\""},
        BadConfigCase{
            "StaticBadEmissionsType",
            "node: {name: n}\nproviders: [{type: static, emissions_type: mean, values: {DE: 1}}]\n",
            "test.yaml: providers[0].emissions_type: expected \"average\" or \"marginal\", "
            "got \"mean\""},
        BadConfigCase{"DocumentNotAMapping", "- a\n- b\n",
                      "test.yaml: (document): expected a mapping, got a list"},
        BadConfigCase{"NodeNotAMapping", "node: n1\n",
                      "test.yaml: node: expected a mapping, got \"n1\""},
        BadConfigCase{
            "WattTimeWithoutPassword",
            "node: {name: n}\nproviders: [{type: watttime, username: {env: U}, locations: [X]}]\n",
            "test.yaml: providers[0].password: required key is missing"},
        BadConfigCase{
            "UnknownSecretSource",
            "node: {name: n}\nproviders: [{type: electricity_maps, token: {vault: x}, locations: "
            "[DE]}]\n",
            "test.yaml: providers[0].token.vault: unknown key; expected env, file or credential"},
        BadConfigCase{
            "BadBaseUrl",
            "node: {name: n}\nproviders: [{type: uk_carbon_intensity, base_url: ftp://x, "
            "locations: [national]}]\n",
            "test.yaml: providers[0].base_url: expected an http(s):// URL, got \"ftp://x\""},
        BadConfigCase{"BackoffMaxBelowInitial",
                      "node: {name: n}\npoll: {backoff_initial: 1m, backoff_max: 10s}\nproviders: "
                      "[{type: replay, locations: [DE]}]\n",
                      "test.yaml: poll.backoff_max: must be at least backoff_initial, got \"10s\""},
        BadConfigCase{"NoLocationPolledAtATime",
                      "node: {name: n}\npoll: {concurrent_locations: 0}\nproviders: "
                      "[{type: replay, locations: [DE]}]\n",
                      "test.yaml: poll.concurrent_locations: must be a whole number between 1 and "
                      "64, got 0"},
        BadConfigCase{
            "UnknownIcmpMode",
            "node: {name: n}\nrtt: {probe: {icmp_mode: setuid}}\nproviders: [{type: replay, "
            "locations: [DE]}]\n",
            "test.yaml: rtt.probe.icmp_mode: must be auto, datagram or raw, got \"setuid\""},
        BadConfigCase{"ProbeJitterOutOfRange",
                      "node: {name: n}\nrtt: {probe: {jitter: 1.5}}\nproviders: [{type: replay, "
                      "locations: [DE]}]\n",
                      "test.yaml: rtt.probe.jitter: must be in [0, 1), got 1.5"},
        BadConfigCase{
            "ProbeWindowNotWhole",
            "node: {name: n}\nrtt: {probe: {window: 2.5}}\nproviders: [{type: replay, locations: "
            "[DE]}]\n",
            "test.yaml: rtt.probe.window: must be a whole number between 1 and 100000, got 2.5"},
        BadConfigCase{"ProbeHistogramMaxPeersNegative",
                      "node: {name: n}\nrtt: {probe: {histogram_max_peers: -1}}\nproviders: "
                      "[{type: replay, locations: [DE]}]\n",
                      "test.yaml: rtt.probe.histogram_max_peers: must be a whole number between 0 "
                      "and 100000, got -1"},
        BadConfigCase{"ProbeHistogramMaxPeersNotANumber",
                      "node: {name: n}\nrtt: {probe: {histogram_max_peers: all}}\nproviders: "
                      "[{type: replay, locations: [DE]}]\n",
                      "test.yaml: rtt.probe.histogram_max_peers: "},
        BadConfigCase{"PeerUnknownProtocol",
                      "node: {name: n}\nrtt: {peers: [{name: b, address: 10.0.0.2, protocol: "
                      "udp}]}\nproviders: [{type: replay, locations: [DE]}]\n",
                      "test.yaml: rtt.peers[0].protocol: must be icmp or tcp, got \"udp\""},
        BadConfigCase{"PeerPortWithoutTcp",
                      "node: {name: n}\nrtt: {peers: [{name: b, address: 10.0.0.2, port: "
                      "80}]}\nproviders: [{type: replay, locations: [DE]}]\n",
                      "test.yaml: rtt.peers[0].port: only tcp peers have a port"},
        BadConfigCase{
            "PeerPortOutOfRange",
            "node: {name: n}\nrtt: {peers: [{name: b, address: 10.0.0.2, protocol: tcp, port: "
            "70000}]}\nproviders: [{type: replay, locations: [DE]}]\n",
            "test.yaml: rtt.peers[0].port: must be a whole number between 1 and 65535, got 70000"},
        BadConfigCase{"PeerWithNothingToDo",
                      "node: {name: n}\nrtt: {peers: [{name: b, region: x}]}\nproviders: [{type: "
                      "replay, locations: [DE]}]\n",
                      "test.yaml: rtt.peers[0].address: peer \"b\" has neither an address to probe "
                      "nor a static_matrix"},
        BadConfigCase{"DuplicatePeer",
                      "node: {name: n}\nrtt: {peers: [{name: b, address: ::1}, {name: b, address: "
                      "127.0.0.1}]}\nproviders: [{type: replay, locations: [DE]}]\n",
                      "test.yaml: rtt.peers[1].name: duplicate peer \"b\""},
        BadConfigCase{"ReplayKeyOnLiveProvider",
                      "node: {name: n}\nproviders: [{type: uk_carbon_intensity, trace: x.csv, "
                      "locations: [national]}]\n",
                      "test.yaml: providers[0].trace: unknown key"}),
    [](const ::testing::TestParamInfo<BadConfigCase>& param_info) {
      return std::string(param_info.param.name);
    });

TEST(LoadCollectorConfig, ProbedPeers) {
  absl::StatusOr<CollectorConfig> config = Parse(R"yaml(
node: {name: a}
providers: [{type: replay, locations: [DE]}]
rtt:
  probe: {icmp_mode: datagram, interval: 500ms, timeout: 300ms, window: 20, tcp_port: 9464,
          histogram_max_peers: 0}
  peers:
    - {name: b, address: "::1", location: FR, region: europe-west9}
    - {name: c, address: c.example.internal, protocol: tcp}
    - {name: d, address: 127.0.0.1, protocol: tcp, port: 8080}
)yaml");
  ASSERT_THAT(config, IsOk());
  const ProbeConfig& probe = config->rtt.probe;
  EXPECT_EQ(probe.icmp_mode, IcmpMode::kDatagram);
  EXPECT_EQ(probe.interval, absl::Milliseconds(500));
  EXPECT_EQ(probe.timeout, absl::Milliseconds(300));
  EXPECT_EQ(probe.window, 20);
  EXPECT_EQ(probe.tcp_port, 9464);
  EXPECT_EQ(probe.histogram_max_peers, 0);
  EXPECT_EQ(ProbeConfig().histogram_max_peers, 100);  // the default
  EXPECT_EQ(probe.resolve_interval, absl::Minutes(5));
  ASSERT_EQ(config->rtt.peers.size(), 3u);
  EXPECT_EQ(config->rtt.peers[0].protocol, ProbeProtocol::kIcmp);
  EXPECT_EQ(config->rtt.peers[0].location, "FR");
  EXPECT_EQ(config->rtt.peers[1].protocol, ProbeProtocol::kTcp);
  EXPECT_EQ(config->rtt.peers[1].port, 0);  // the probe section's tcp_port
  EXPECT_EQ(config->rtt.peers[2].port, 8080);
}

TEST(LoadCollectorConfig, YamlSyntaxErrorNamesLineAndColumn) {
  EXPECT_THAT(Parse("node: {name: n1\nproviders: [\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("YAML syntax error")));
  EXPECT_THAT(Parse("node: {name: n1\nproviders: [\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::StartsWith("test.yaml:")));
}

TEST(LoadCollectorConfig, ADuplicatedKeyIsAnErrorWithBothLines) {
  EXPECT_THAT(Parse("node: {name: a}\nproviders: [{type: replay, locations: [DE]}]\n"
                    "node: {name: b}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "test.yaml: node: duplicated key, at lines 1 and 3; keep one"));
  EXPECT_THAT(Parse("node: {name: a, name: b}\nproviders: [{type: replay, locations: [DE]}]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("node.name: duplicated key")));
}

TEST(LoadCollectorConfig, MissingFileIsNotFound) {
  EXPECT_THAT(LoadCollectorConfig("/nonexistent/carbonroute.yaml"),
              StatusIs(absl::StatusCode::kNotFound,
                       "cannot read config file \"/nonexistent/carbonroute.yaml\": No such file or "
                       "directory"));
}

TEST(ChangedSections, NamesTheTopLevelKeysThatDifferNotTheirFormatting) {
  const std::string before =
      "node: {name: a}\nproviders: [{type: replay, locations: [DE]}]\nrtt: {peers: []}\n";
  // Another layout and a comment: the same YAML.
  EXPECT_TRUE(ChangedSections(before,
                              "# edited\nnode:\n  name: a\nproviders:\n  - {type: replay, "
                              "locations: [DE]}\nrtt: {peers: []}\n",
                              {})
                  .empty());
  EXPECT_THAT(
      ChangedSections(before,
                      "node: {name: b}\nproviders: [{type: replay, locations: [DE]}]\n"
                      "rtt: {peers: [{name: x, address: 127.0.0.1}]}\npoll: {interval: 1m}\n",
                      {"rtt"}),
      ::testing::ElementsAre("node", "poll"));  // rtt ignored; poll added
  EXPECT_THAT(ChangedSections(before, "node: {name: a}\n", {}),
              ::testing::ElementsAre("providers", "rtt"));  // removed
  EXPECT_THAT(ChangedSections(before, "node: [unclosed", {"rtt"}),
              ::testing::ElementsAre("node", "providers"));  // not YAML: every key
}

}  // namespace
}  // namespace carbonroute
