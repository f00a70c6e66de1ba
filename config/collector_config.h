// File: config/collector_config.h
//
// Typed settings of carbonroute-collector, as loaded from YAML by
// LoadCollectorConfig() (config/load_collector_config.h). Plain value types
// with in-class defaults; docs/configuration.md lists every key.
//
// Units live in the types: every interval is an absl::Duration; carbon
// intensities are gCO2eq/kWh (`_grams_per_kwh`).
#ifndef CARBONROUTE_CONFIG_COLLECTOR_CONFIG_H_
#define CARBONROUTE_CONFIG_COLLECTOR_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/data_files.h"
#include "contract/emissions_type.h"

namespace carbonroute {

enum class ProviderType { kReplay, kStatic, kWattTime, kElectricityMaps, kUkCarbonIntensity };

// Where a secret (password, API token) comes from. The config holds only this
// reference; the value is read when the provider is built and is never logged,
// exported or stored. YAML forms:
//   password: {env: WATTTIME_PASSWORD}          environment variable
//   password: {file: /etc/carbonroute/wt-pass}  whole file, trailing newline dropped
//   password: {credential: watttime-password}   $CREDENTIALS_DIRECTORY/<name> (systemd
//   LoadCredential=) password: "literal"                          discouraged, but accepted
struct SecretRef {
  enum class Source { kNone, kLiteral, kEnv, kFile, kCredential };
  Source source = Source::kNone;
  std::string reference;  // the variable name, path, credential name, or the literal

  bool empty() const { return source == Source::kNone; }
};

// Settings common to the HTTP providers.
struct HttpProviderSettings {
  std::string base_url;  // defaults per provider type (see docs/configuration.md)
  absl::Duration timeout = absl::Seconds(10);  // whole request
  absl::Duration connect_timeout = absl::Seconds(5);
};

// `watttime`: WattTime v3 (https://docs.watttime.org). Marginal emissions (MOER).
struct WattTimeSettings {
  SecretRef username;
  SecretRef password;
  std::string signal_type = "co2_moer";
  // "forecast": /v3/forecast, lbs/MWh converted to gCO2eq/kWh (subscribers, or CAISO_NORTH);
  // "signal_index": /v3/signal-index, a 0–100 percentile (free in every region).
  std::string data = "forecast";
};

// `electricity_maps`: Electricity Maps API v3. Average emissions.
// Electricity Maps' request parameters (its API reference,
// portal.electricitymaps.com/developer-hub/api/reference).
struct ElectricityMapsSettings {
  SecretRef token;
  std::string auth_header = "auth-token";          // "X-BLOBR-KEY" for the api-access trial host
  std::string emission_factor_type = "lifecycle";  // or "direct"
  // "v3" (the default, whose shapes the reference documents) or "v4": the
  // base URL's last path segment follows it (http.base_url ends in it).
  std::string api_version = "v3";
  // temporalGranularity asked for: "" (not sent: the API's hourly), "5_minutes",
  // "15_minutes" or "hourly"; a reading is then valid for its 5 or 15 minutes.
  std::string temporal_granularity;
  bool disable_estimations = false;  // disableEstimations=true: measured points only
};

// A location given as Electricity Maps' own cloud mapping, "PROVIDER:REGION"
// (e.g. "gcp:europe-west1" → dataCenterProvider=gcp&dataCenterRegion=europe-west1).
inline constexpr char kDataCenterSeparator = ':';

// Settings of the `replay` provider: a historical hourly trace served as if live.
struct ReplaySettings {
  // CSV in the shape of data/carbon-intensity-2022-hourly.csv. A relative path
  // is looked up by the collector in its data directories (see docs/configuration.md).
  std::string trace = kIntensityTraceFile;
};

// Settings of the `static` provider: fixed values from the config.
struct StaticSettings {
  EmissionsType emissions_type = EmissionsType::kAverage;
  // Each reading is valid for this long, aligned to multiples of it since the
  // Unix epoch (1h: from the top of the hour to the next).
  absl::Duration validity = absl::Hours(1);
  // location → gCO2eq/kWh. Its keys are the provider's locations.
  std::map<std::string, double> grams_per_kwh;
};

// The word that makes a provider's `locations` the cluster's
// (ProviderConfig::locations_from_nodes).
inline constexpr char kLocationsFromNodes[] = "nodes";

// How one collector keeps its calls within the account's published limits
// (providers/call_limiter.h, PublishedLimits, holds the figures and their sources).
struct ProviderLimitSettings {
  // How many collectors call with this account (the carbon role's replicas):
  // each keeps to 1/N of every published limit, so that together they stay within it.
  int account_shared_by = 1;
  // Electricity Maps: calls this account may make per calendar month (UTC),
  // shared by `account_shared_by` collectors; 0 = no budget.
  int64_t monthly_budget = 0;
};

struct ProviderConfig {
  // Unique among providers; the `provider` metric label. Defaults to the type name.
  std::string name;
  ProviderType type = ProviderType::kReplay;
  // Grid locations to poll, in the provider's own codes (Electricity Maps zone
  // "DE", WattTime region "CAISO_NORTH"). For `replay`, ["*"] means every zone
  // of the trace. For `static`, the keys of `grams_per_kwh`.
  std::vector<std::string> locations;
  // `locations: nodes`: the grid locations of the Nodes rtt.discovery.kubernetes
  // lists, followed as Nodes come and go (collector/node_locations.h); `locations`
  // is then empty. Not for `static` nor `uk_carbon_intensity`.
  bool locations_from_nodes = false;
  ProviderLimitSettings limits;
  ReplaySettings replay;
  StaticSettings static_values;
  HttpProviderSettings http;
  WattTimeSettings watttime;
  ElectricityMapsSettings electricity_maps;
};

struct NodeConfig {
  // This node's name: the `node`/`source` label. Required whenever the
  // collector exports carbonroute_node_info (ExportsNodeInfo): every role but
  // the carbon role needs one.
  std::string name;
  std::string region;    // cloud region, e.g. "europe-west1" (may be empty)
  std::string zone;      // cloud zone, e.g. "europe-west1-b" (may be empty)
  std::string location;  // grid location this node draws power from (may be empty)
};

// An ordered fallback (the top-level `fallback` list): for each of
// `locations` (empty: every location the first provider polls that a later
// one polls too), the first of `providers` that has a valid reading is the
// one exported; the next answers only while those before it have none. All
// of them give the same emissions type (checked when the configuration is read).
struct FallbackConfig {
  std::vector<std::string> providers;  // provider names, at least two, in order of preference
  std::vector<std::string> locations;
};

struct PollConfig {
  // Longest time between two polls. The collector also wakes when the earliest
  // exported reading's validity ends.
  absl::Duration interval = absl::Seconds(60);
  // Forecasts are fetched again once the cached forecast ends sooner than now + horizon.
  absl::Duration forecast_horizon = absl::Hours(24);
  // Readings whose validity ended longer ago than this are deleted from the cache.
  absl::Duration retention = absl::Hours(24 * 7);
  // While a provider fails, its last good reading stays exported until
  // valid_to + grace; after that the series disappears.
  absl::Duration grace = absl::Minutes(30);
  // Exponential backoff after a transient failure (5xx, timeout, malformed
  // answer): initial, doubling per consecutive failure up to max, ×[0.5, 1.5) jitter.
  absl::Duration backoff_initial = absl::Seconds(30);
  absl::Duration backoff_max = absl::Minutes(30);
  // Pause after an error that retrying cannot fix (bad credentials, zone or
  // endpoint not in the plan, unknown location): reported once, retried this rarely.
  absl::Duration config_error_retry = absl::Hours(6);
  // Readiness (/readyz, collector/readiness.h) waits for the first poll at
  // most this long after start, then says ready with what it has.
  absl::Duration first_poll_deadline = absl::Seconds(30);
  // How many of one provider's locations are polled at once (each with its
  // own calls in flight), so that one slow or hanging location delays the
  // others by at most one call's timeout per round. The providers' published
  // limits still hold: every call goes through the account's CallLimiter
  // (providers/call_limiter.h). 1 polls location after location.
  int concurrent_locations = 4;
  // The top-level `fallback` key: ordered providers per location (FallbackConfig).
  std::vector<FallbackConfig> fallback;
};

enum class ProbeProtocol { kIcmp, kTcp };
// Which ICMP socket the prober opens: kAuto prefers an unprivileged datagram
// socket (allowed when net.ipv4.ping_group_range covers the process's group)
// and falls back to a raw socket (needs CAP_NET_RAW).
enum class IcmpMode { kAuto, kDatagram, kRaw };

// A peer whose RTT from this node the collector exports: measured by probes
// when it has an address, declared from the static matrix by its region.
struct PeerConfig {
  std::string name;      // the peer's node name: the `target` label (IPs are not identities)
  std::string region;    // its cloud region, for the static matrix
  std::string zone;      // its cloud zone: groups peers for carbonroute_zone_rtt_seconds
  std::string location;  // its grid location (informational: logged with the probe set)
  std::string address;   // IPv4/IPv6 literal or hostname to probe; "" = not probed
  ProbeProtocol protocol = ProbeProtocol::kIcmp;
  uint16_t port = 0;  // TCP port (protocol tcp); 0 = ProbeConfig::tcp_port
};

// How peers are probed (prober/prober.h).
struct ProbeConfig {
  IcmpMode icmp_mode = IcmpMode::kAuto;
  absl::Duration interval = absl::Seconds(1);          // between two probes to one peer
  absl::Duration timeout = absl::Seconds(1);           // a reply later than this is a loss
  double jitter = 0.1;                                 // interval × (1 ± jitter)
  int window = 60;                                     // probes in the loss-ratio window
  absl::Duration stale_after = absl::ZeroDuration();   // 0 = 5 × interval + timeout
  absl::Duration resolve_interval = absl::Minutes(5);  // hostnames are resolved again this often
  uint16_t tcp_port = 22;                              // default port of tcp peers
  // Each peer's carbonroute_probe_rtt_seconds histogram (19 series) is
  // exported while there are at most this many peers; 0: never
  // (exporter/peer_series_table.h).
  int histogram_max_peers = 100;

  bool operator==(const ProbeConfig&) const = default;
};

// `rtt.discovery.kubernetes`: peers are the cluster's Nodes, listed and
// watched through the Kubernetes API (discovery/node_discovery.h).
struct KubernetesDiscoveryConfig {
  bool enabled = false;
  // "" = in cluster: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
  // with the service account's token and CA. Set for `kubectl proxy`
  // ("http://127.0.0.1:8001") or an API server reached from outside.
  std::string api_url;
  // Bearer token file, read again before every request (projected tokens
  // rotate). "" = the service account's in cluster, none with api_url.
  std::string token_file;
  // CA bundle the API server's certificate is verified against (never
  // disabled). "" = the service account's in cluster, the system's with api_url.
  std::string ca_file;
  // A kubeconfig file (as kubectl's --kubeconfig) and the context in it
  // ("" = its current-context). Without api_url and kubeconfig, the API is
  // found as every Kubernetes client finds it: $KUBECONFIG, else the Pod's,
  // else ~/.kube/config (kube/kube_connection.h).
  std::string kubeconfig;
  std::string context;
  // Only Nodes matching this selector are peers (the API's labelSelector), e.g.
  // "carbonroute.io/probe!=false". "" = every Node.
  std::string label_selector;
  // region → grid location table (data/cloud-regions.csv, or a `gcp_region,zone` CSV) for Nodes
  // without a carbonroute.io/location label. Looked up in the data directories.
  std::string region_locations = kRegionZonesFile;
  ProbeProtocol protocol = ProbeProtocol::kIcmp;  // how discovered Nodes are probed
  uint16_t port = 0;                              // tcp: 0 = rtt.probe.tcp_port
  int page_size = 500;                            // Nodes per list request (`limit`)
  // Each watch asks the server to end it after this long (`timeoutSeconds`); it is then resumed.
  absl::Duration watch_timeout = absl::Minutes(5);
  absl::Duration request_timeout = absl::Seconds(30);  // one list page
  // After a failed request: initial, doubled per failure up to max, ×[0.5, 1.5) jitter.
  absl::Duration backoff_initial = absl::Seconds(1);
  absl::Duration backoff_max = absl::Minutes(1);
  bool operator==(const KubernetesDiscoveryConfig&) const = default;
};

// kNone: Nodes are discovered (for `locations: nodes`) but none is probed: the carbon role.
enum class PeerSelectionMode { kAuto, kAll, kSampled, kNone };

// `rtt.peer_selection`: which discovered Nodes this collector probes
// (discovery/peer_selection.h). Configured peers (`rtt.peers`) are always probed.
struct PeerSelectionConfig {
  // kAuto: kAll below kAutoSampledFrom discovered Nodes, kSampled from there.
  PeerSelectionMode mode = PeerSelectionMode::kAuto;
  static constexpr int kAutoSampledFrom = 100;
  int same_zone = 5;        // sampled: peers of this collector's own zone
  int per_remote_zone = 2;  // sampled: representatives of every other zone
  bool operator==(const PeerSelectionConfig&) const = default;
};

struct RttConfig {
  // CSV `sending_region,receiving_region,milliseconds` (data/gcp-inter-region-latency-ms.csv):
  // RTTs declared, not measured, exported with method="declared". "" = none.
  std::string static_matrix;
  ProbeConfig probe;
  std::vector<PeerConfig> peers;
  KubernetesDiscoveryConfig kubernetes;
  PeerSelectionConfig peer_selection;
};

// One ConfigMap in the shape Azure's carbon-aware-keda-operator reads (the
// one Azure's kubernetes-carbon-intensity-exporter writes): the forecast of
// `location` (a grid location the collector polls, or a cloud region of one).
struct KedaConfigMapConfig {
  std::string location;
  std::string name = "carbon-intensity";
  std::string namespace_name = "kube-system";
  std::string key = "data";  // binaryData's key the operator's localConfigMap names
};

// `publish`: objects the collector writes into a Kubernetes cluster. The API
// is found as rtt.discovery.kubernetes finds it (api_url, kubeconfig, ...;
// none: $KUBECONFIG, in a Pod the service account, else ~/.kube/config).
// Only the replica holding the Lease writes.
struct PublishConfig {
  std::vector<KedaConfigMapConfig> keda_configmaps;
  std::string api_url, token_file, ca_file, kubeconfig, context;
  std::string lease_name = "carbonroute-keda-configmaps";
  std::string lease_namespace;  // "" = the first ConfigMap's namespace
  absl::Duration lease_duration = absl::Seconds(15);
  // How far back the observed readings go (the operator's eco-mode rules look back).
  absl::Duration history = absl::Hours(24);
};

struct CollectorConfig {
  std::string listen_address = "127.0.0.1:9464";  // host:port of /metrics and /healthz
  std::string database = "carbonroute.sqlite";    // SQLite file, or ":memory:"
  std::string log_level = "info";                 // trace|debug|info|warn|error|off
  NodeConfig node;
  PollConfig poll;
  std::vector<ProviderConfig> providers;
  RttConfig rtt;
  PublishConfig publish;
};

// Whether `config` probes any peer: rtt.peers with an address, or Node
// discovery with a peer selection other than none.
bool ProbesPeers(const CollectorConfig& config);

// Whether `config` exports carbonroute_node_info for this node: every
// configuration but the carbon role (Node discovery with peer selection none),
// which speaks for the cluster's grid locations, not for the Node it runs on.
bool ExportsNodeInfo(const CollectorConfig& config);

// "replay", "static", "watttime", "electricity_maps" or "uk_carbon_intensity".
absl::string_view ProviderTypeName(ProviderType type);
// "auto", "all", "sampled" or "none": the values of rtt.peer_selection.mode.
absl::string_view PeerSelectionModeName(PeerSelectionMode mode);

}  // namespace carbonroute

#endif  // CARBONROUTE_CONFIG_COLLECTOR_CONFIG_H_
