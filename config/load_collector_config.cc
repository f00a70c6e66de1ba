#include "config/load_collector_config.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/data_files.h"
#include "base/listen_address.h"
#include "base/status_macros.h"
#include "base/usage.h"
#include "config/yaml_reader.h"

namespace carbonroute {
namespace {

using config_internal::MappingReader;

constexpr absl::string_view kLogLevels[] = {"trace", "debug", "info", "warn", "error", "off"};

absl::Status Invalid(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

absl::Status ValidateListenAddress(std::string& address) {
  std::optional<std::string> normalized = NormalizeListenAddress(address);
  if (!normalized) {
    return Invalid(
        "listen_address",
        absl::StrCat("expected host:port such as \"127.0.0.1:9464\", got \"", address, "\""));
  }
  address = *std::move(normalized);
  return absl::OkStatus();
}

absl::Status RequirePositive(const MappingReader& reader, absl::string_view key, absl::Duration d) {
  if (d <= absl::ZeroDuration()) {
    const std::string written = reader.Written(key);  // as the user wrote it: "-60s", not "-1m"
    return Invalid(reader.PathOf(key),
                   absl::StrCat("must be positive, got \"",
                                !written.empty()            ? written
                                : d == absl::ZeroDuration() ? "0s"
                                                            : absl::FormatDuration(d),
                                "\""));
  }
  return absl::OkStatus();
}

absl::Status ReadNode(MappingReader& root, NodeConfig& node) {
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader reader, root.ReadMapping("node"));
  CARBONROUTE_RETURN_IF_ERROR(reader.ExpectOnly({"name", "region", "zone", "location"}));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("name", node.name));  // see ProbesPeers
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("region", node.region));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("zone", node.zone));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("location", node.location));
  return reader.Finish();
}

// A whole number in [min, max] at `key` (unchanged when absent).
absl::Status ReadWholeNumber(MappingReader& reader, absl::string_view key, double min, double max,
                             double& out) {
  double value = out;
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDouble(key, value));
  if (value != std::floor(value) || value < min || value > max) {
    return Invalid(reader.PathOf(key), absl::StrCat("must be a whole number between ", min, " and ",
                                                    max, ", got ", value));
  }
  out = value;
  return absl::OkStatus();
}

absl::Status ReadPoll(MappingReader& root, PollConfig& poll) {
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader reader, root.ReadMapping("poll"));
  CARBONROUTE_RETURN_IF_ERROR(reader.ExpectOnly(
      {"interval", "forecast_horizon", "retention", "grace", "backoff_initial", "backoff_max",
       "config_error_retry", "first_poll_deadline", "concurrent_locations"}));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("interval", poll.interval));
  CARBONROUTE_RETURN_IF_ERROR(RequirePositive(reader, "interval", poll.interval));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("forecast_horizon", poll.forecast_horizon));
  if (poll.forecast_horizon < absl::ZeroDuration() || poll.forecast_horizon > absl::Hours(24 * 8)) {
    return Invalid(reader.PathOf("forecast_horizon"),
                   absl::StrCat("must be between 0s and 192h, got \"",
                                absl::FormatDuration(poll.forecast_horizon), "\""));
  }
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("retention", poll.retention));
  CARBONROUTE_RETURN_IF_ERROR(RequirePositive(reader, "retention", poll.retention));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("grace", poll.grace));
  if (poll.grace < absl::ZeroDuration()) {
    return Invalid(reader.PathOf("grace"), absl::StrCat("must not be negative, got \"",
                                                        absl::FormatDuration(poll.grace), "\""));
  }
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("backoff_initial", poll.backoff_initial));
  CARBONROUTE_RETURN_IF_ERROR(RequirePositive(reader, "backoff_initial", poll.backoff_initial));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("backoff_max", poll.backoff_max));
  if (poll.backoff_max < poll.backoff_initial) {
    return Invalid(reader.PathOf("backoff_max"),
                   absl::StrCat("must be at least backoff_initial, got \"",
                                absl::FormatDuration(poll.backoff_max), "\""));
  }
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("config_error_retry", poll.config_error_retry));
  CARBONROUTE_RETURN_IF_ERROR(
      RequirePositive(reader, "config_error_retry", poll.config_error_retry));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("first_poll_deadline", poll.first_poll_deadline));
  CARBONROUTE_RETURN_IF_ERROR(
      RequirePositive(reader, "first_poll_deadline", poll.first_poll_deadline));
  double concurrent = poll.concurrent_locations;
  CARBONROUTE_RETURN_IF_ERROR(ReadWholeNumber(reader, "concurrent_locations", 1, 64, concurrent));
  poll.concurrent_locations = static_cast<int>(concurrent);
  return reader.Finish();
}

absl::Status ReadStaticSettings(MappingReader& reader, ProviderConfig& provider) {
  StaticSettings& settings = provider.static_values;
  std::string emissions_type(EmissionsTypeName(settings.emissions_type));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("emissions_type", emissions_type));
  std::optional<EmissionsType> parsed = ParseEmissionsType(emissions_type);
  if (!parsed) {
    return Invalid(
        reader.PathOf("emissions_type"),
        absl::StrCat("expected \"average\" or \"marginal\", got \"", emissions_type, "\""));
  }
  settings.emissions_type = *parsed;
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("validity", settings.validity));
  CARBONROUTE_RETURN_IF_ERROR(RequirePositive(reader, "validity", settings.validity));
  if (!reader.Has("values")) return Invalid(reader.PathOf("values"), "required key is missing");
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadNumberMap("values", settings.grams_per_kwh));
  if (settings.grams_per_kwh.empty()) {
    return Invalid(reader.PathOf("values"), "must list at least one location");
  }
  for (const auto& [location, value] : settings.grams_per_kwh) {
    if (value < 0) {
      return Invalid(absl::StrCat(reader.PathOf("values"), ".", location),
                     absl::StrCat("gCO2eq/kWh must not be negative, got ", value));
    }
    provider.locations.push_back(location);
  }
  return absl::OkStatus();
}

absl::Status ReadHttpSettings(MappingReader& reader, absl::string_view default_base_url,
                              HttpProviderSettings& http) {
  http.base_url = std::string(default_base_url);
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("base_url", http.base_url));
  if (!absl::StartsWith(http.base_url, "https://") && !absl::StartsWith(http.base_url, "http://")) {
    return Invalid(reader.PathOf("base_url"),
                   absl::StrCat("expected an http(s):// URL, got \"", http.base_url, "\""));
  }
  while (absl::EndsWith(http.base_url, "/")) http.base_url.pop_back();
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("timeout", http.timeout));
  CARBONROUTE_RETURN_IF_ERROR(RequirePositive(reader, "timeout", http.timeout));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("connect_timeout", http.connect_timeout));
  CARBONROUTE_RETURN_IF_ERROR(RequirePositive(reader, "connect_timeout", http.connect_timeout));
  return absl::OkStatus();
}

// `locations`: a list of the provider's codes, or the word `nodes` (REQUIRES:
// the provider type allows it).
absl::Status ReadLocations(MappingReader& reader, ProviderConfig& provider,
                           absl::string_view empty_hint =
                               "list at least one location, or "
                               "\"nodes\" for the cluster's") {
  std::string word;
  if (reader.Has("locations") && reader.ReadString("locations", word).ok()) {
    if (word != kLocationsFromNodes) {
      return Invalid(reader.PathOf("locations"),
                     absl::StrCat("expected a list of locations or \"", kLocationsFromNodes,
                                  "\", got \"", word, "\""));
    }
    provider.locations_from_nodes = true;
    return absl::OkStatus();
  }
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadStringList("locations", provider.locations));
  if (provider.locations.empty()) return Invalid(reader.PathOf("locations"), empty_hint);
  return absl::OkStatus();
}

// `account_shared_by` and (with `budget`) `monthly_budget`.
absl::Status ReadLimits(MappingReader& reader, ProviderLimitSettings& limits, bool budget) {
  double shared_by = limits.account_shared_by;
  CARBONROUTE_RETURN_IF_ERROR(ReadWholeNumber(reader, "account_shared_by", 1, 1000, shared_by));
  limits.account_shared_by = static_cast<int>(shared_by);
  if (!budget) return absl::OkStatus();
  double monthly = static_cast<double>(limits.monthly_budget);
  CARBONROUTE_RETURN_IF_ERROR(ReadWholeNumber(reader, "monthly_budget", 0, 1e12, monthly));
  limits.monthly_budget = static_cast<int64_t>(monthly);
  return absl::OkStatus();
}

absl::Status RequireOneOf(const MappingReader& reader, absl::string_view key,
                          const std::string& value,
                          std::initializer_list<absl::string_view> allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    return Invalid(reader.PathOf(key),
                   absl::StrCat("unknown value \"", value,
                                "\"; expected one of: ", absl::StrJoin(allowed, ", ")));
  }
  return absl::OkStatus();
}

// signal_type: co2_moer alone drives scoring; the other two WattTime signals
// are refused saying what they are (WattTime's v3 transition guide and
// data-signals page) and what to use instead.
absl::Status CheckWattTimeSignal(const MappingReader& reader, const std::string& signal) {
  if (signal == "co2_aoer") {
    return Invalid(reader.PathOf("signal_type"),
                   "co2_aoer (WattTime's average operating emissions rate) is hourly, historical "
                   "only and has no forecast, so it cannot drive live scoring; for average "
                   "emissions use a provider of type electricity_maps or uk_carbon_intensity, "
                   "and keep co2_moer here for marginal emissions");
  }
  if (signal == "health_damage") {
    return Invalid(reader.PathOf("signal_type"),
                   "health_damage is WattTime's marginal health damage of the power plants that "
                   "answer demand, in dollars per MWh (the value of a statistical life), not "
                   "gCO2eq/kWh: carbonroute scores emissions and neither reads nor exports it; "
                   "use co2_moer");
  }
  return RequireOneOf(reader, "signal_type", signal, {"co2_moer"});
}

// Every location written as "latitude,longitude" with both numbers must be on
// the globe: latitude in [-90, 90], longitude in [-180, 180]. All such
// mistakes are named at once.
absl::Status CheckCoordinates(const MappingReader& reader,
                              const std::vector<std::string>& locations) {
  std::vector<std::string> wrong;
  for (std::size_t i = 0; i < locations.size(); ++i) {
    const std::vector<absl::string_view> parts = absl::StrSplit(locations[i], ',');
    double latitude = 0, longitude = 0;
    if (parts.size() != 2 || !absl::SimpleAtod(absl::StripAsciiWhitespace(parts[0]), &latitude) ||
        !absl::SimpleAtod(absl::StripAsciiWhitespace(parts[1]), &longitude)) {
      continue;  // a region or zone code
    }
    std::vector<std::string> why;
    if (!(latitude >= -90 && latitude <= 90)) {
      why.push_back(absl::StrCat("latitude ", latitude, " is outside [-90, 90]"));
    }
    if (!(longitude >= -180 && longitude <= 180)) {
      why.push_back(absl::StrCat("longitude ", longitude, " is outside [-180, 180]"));
    }
    if (!why.empty()) {
      wrong.push_back(absl::StrCat("[", i, "] \"", locations[i], "\": ", absl::StrJoin(why, ", ")));
    }
  }
  if (wrong.empty()) return absl::OkStatus();
  return Invalid(reader.PathOf("locations"),
                 absl::StrCat("coordinates must be \"latitude,longitude\" on the globe: ",
                              absl::StrJoin(wrong, "; ")));
}

// Electricity Maps' cloud mapping, "PROVIDER:REGION": both parts non-empty.
absl::Status CheckDataCenters(const MappingReader& reader,
                              const std::vector<std::string>& locations) {
  std::vector<std::string> wrong;
  for (std::size_t i = 0; i < locations.size(); ++i) {
    const std::vector<absl::string_view> parts = absl::StrSplit(locations[i], kDataCenterSeparator);
    if (parts.size() == 1) continue;
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      wrong.push_back(absl::StrCat("[", i, "] \"", locations[i], "\""));
    }
  }
  if (wrong.empty()) return absl::OkStatus();
  return Invalid(reader.PathOf("locations"),
                 absl::StrCat("a data centre is \"PROVIDER:REGION\" such as gcp:europe-west1, "
                              "got ",
                              absl::StrJoin(wrong, ", ")));
}

// The base URL's last path segment, when it is an API version, is `version`
// (a proxy's URL without one is kept as it is).
void FollowApiVersion(std::string& base_url, absl::string_view version) {
  const std::size_t slash = base_url.rfind('/');
  if (slash == std::string::npos) return;
  const absl::string_view last = absl::string_view(base_url).substr(slash + 1);
  if (last == "v3" || last == "v4") base_url = absl::StrCat(base_url.substr(0, slash + 1), version);
}

absl::Status ReadWattTime(MappingReader& reader, ProviderConfig& provider) {
  CARBONROUTE_RETURN_IF_ERROR(
      reader.ExpectOnly({"type", "name", "locations", "base_url", "timeout", "connect_timeout",
                         "username", "password", "signal_type", "data", "account_shared_by"}));
  CARBONROUTE_RETURN_IF_ERROR(ReadHttpSettings(reader, "https://api.watttime.org", provider.http));
  WattTimeSettings& settings = provider.watttime;
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadSecret("username", settings.username));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadSecret("password", settings.password));
  if (settings.username.empty())
    return Invalid(reader.PathOf("username"), "required key is missing");
  if (settings.password.empty())
    return Invalid(reader.PathOf("password"), "required key is missing");
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("signal_type", settings.signal_type));
  CARBONROUTE_RETURN_IF_ERROR(CheckWattTimeSignal(reader, settings.signal_type));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("data", settings.data));
  CARBONROUTE_RETURN_IF_ERROR(
      RequireOneOf(reader, "data", settings.data, {"forecast", "signal_index"}));
  CARBONROUTE_RETURN_IF_ERROR(ReadLimits(reader, provider.limits, /*budget=*/false));
  CARBONROUTE_RETURN_IF_ERROR(ReadLocations(reader, provider));
  return CheckCoordinates(reader, provider.locations);
}

absl::Status ReadElectricityMaps(MappingReader& reader, ProviderConfig& provider) {
  CARBONROUTE_RETURN_IF_ERROR(reader.ExpectOnly(
      {"type", "name", "locations", "base_url", "timeout", "connect_timeout", "token",
       "auth_header", "emission_factor_type", "account_shared_by", "monthly_budget", "api_version",
       "temporal_granularity", "disable_estimations"}));
  ElectricityMapsSettings& settings = provider.electricity_maps;
  const bool version_given = reader.Has("api_version");
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("api_version", settings.api_version));
  CARBONROUTE_RETURN_IF_ERROR(
      RequireOneOf(reader, "api_version", settings.api_version, {"v3", "v4"}));
  CARBONROUTE_RETURN_IF_ERROR(ReadHttpSettings(
      reader, absl::StrCat("https://api.electricitymaps.com/", settings.api_version),
      provider.http));
  if (version_given) FollowApiVersion(provider.http.base_url, settings.api_version);
  CARBONROUTE_RETURN_IF_ERROR(
      reader.ReadString("temporal_granularity", settings.temporal_granularity));
  if (reader.Has("temporal_granularity")) {
    CARBONROUTE_RETURN_IF_ERROR(RequireOneOf(reader, "temporal_granularity",
                                             settings.temporal_granularity,
                                             {"5_minutes", "15_minutes", "hourly"}));
  }
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadBool("disable_estimations", settings.disable_estimations));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadSecret("token", settings.token));
  if (settings.token.empty()) return Invalid(reader.PathOf("token"), "required key is missing");
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("auth_header", settings.auth_header));
  if (settings.auth_header.empty())
    return Invalid(reader.PathOf("auth_header"), "must not be empty");
  CARBONROUTE_RETURN_IF_ERROR(
      reader.ReadString("emission_factor_type", settings.emission_factor_type));
  CARBONROUTE_RETURN_IF_ERROR(RequireOneOf(reader, "emission_factor_type",
                                           settings.emission_factor_type, {"lifecycle", "direct"}));
  CARBONROUTE_RETURN_IF_ERROR(ReadLimits(reader, provider.limits, /*budget=*/true));
  CARBONROUTE_RETURN_IF_ERROR(ReadLocations(reader, provider));
  CARBONROUTE_RETURN_IF_ERROR(CheckCoordinates(reader, provider.locations));
  return CheckDataCenters(reader, provider.locations);
}

absl::Status ReadUkCarbonIntensity(MappingReader& reader, ProviderConfig& provider) {
  CARBONROUTE_RETURN_IF_ERROR(
      reader.ExpectOnly({"type", "name", "locations", "base_url", "timeout", "connect_timeout"}));
  CARBONROUTE_RETURN_IF_ERROR(
      ReadHttpSettings(reader, "https://api.carbonintensity.org.uk", provider.http));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadStringList("locations", provider.locations));
  if (provider.locations.empty()) {
    return Invalid(reader.PathOf("locations"),
                   "list at least one region (\"nodes\" is not possible: a Node's grid "
                   "location is not a UK region)");
  }
  return absl::OkStatus();
}

absl::StatusOr<ProviderConfig> ReadProvider(const YAML::Node& node, const std::string& path) {
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader reader, MappingReader::Create(node, path));
  ProviderConfig provider;
  std::string type;
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("type", type, /*required=*/true));
  if (type == "replay") {
    provider.type = ProviderType::kReplay;
    CARBONROUTE_RETURN_IF_ERROR(reader.ExpectOnly({"type", "name", "trace", "locations"}));
    CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("trace", provider.replay.trace));
    CARBONROUTE_RETURN_IF_ERROR(ReadLocations(
        reader, provider,
        "list at least one grid zone, [\"*\"] for every zone of the trace, or \"nodes\" for "
        "the cluster's"));
  } else if (type == "static") {
    provider.type = ProviderType::kStatic;
    CARBONROUTE_RETURN_IF_ERROR(
        reader.ExpectOnly({"type", "name", "emissions_type", "validity", "values"}));
    CARBONROUTE_RETURN_IF_ERROR(ReadStaticSettings(reader, provider));
  } else if (type == "watttime") {
    provider.type = ProviderType::kWattTime;
    CARBONROUTE_RETURN_IF_ERROR(ReadWattTime(reader, provider));
  } else if (type == "electricity_maps") {
    provider.type = ProviderType::kElectricityMaps;
    CARBONROUTE_RETURN_IF_ERROR(ReadElectricityMaps(reader, provider));
  } else if (type == "uk_carbon_intensity") {
    provider.type = ProviderType::kUkCarbonIntensity;
    CARBONROUTE_RETURN_IF_ERROR(ReadUkCarbonIntensity(reader, provider));
  } else {
    return Invalid(reader.PathOf("type"),
                   absl::StrCat("unknown provider type \"", type,
                                "\"; expected one of: replay, static, watttime, electricity_maps, "
                                "uk_carbon_intensity"));
  }
  provider.name = std::string(ProviderTypeName(provider.type));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("name", provider.name));
  if (provider.name.empty()) return Invalid(reader.PathOf("name"), "must not be empty");
  CARBONROUTE_RETURN_IF_ERROR(reader.Finish());
  return provider;
}

absl::Status ReadPort(MappingReader& reader, absl::string_view key, uint16_t& port) {
  if (!reader.Has(key)) return absl::OkStatus();
  double value = port;
  CARBONROUTE_RETURN_IF_ERROR(ReadWholeNumber(reader, key, 1, 65535, value));
  port = static_cast<uint16_t>(value);
  return absl::OkStatus();
}

absl::Status ReadProbe(MappingReader& rtt_reader, ProbeConfig& probe) {
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader reader, rtt_reader.ReadMapping("probe"));
  CARBONROUTE_RETURN_IF_ERROR(
      reader.ExpectOnly({"icmp_mode", "interval", "timeout", "jitter", "window", "stale_after",
                         "resolve_interval", "tcp_port", "histogram_max_peers"}));
  std::string mode = "auto";
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("icmp_mode", mode));
  if (mode == "auto") {
    probe.icmp_mode = IcmpMode::kAuto;
  } else if (mode == "datagram") {
    probe.icmp_mode = IcmpMode::kDatagram;
  } else if (mode == "raw") {
    probe.icmp_mode = IcmpMode::kRaw;
  } else {
    return Invalid(reader.PathOf("icmp_mode"),
                   absl::StrCat("must be auto, datagram or raw, got \"", mode, "\""));
  }
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("interval", probe.interval));
  CARBONROUTE_RETURN_IF_ERROR(RequirePositive(reader, "interval", probe.interval));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("timeout", probe.timeout));
  CARBONROUTE_RETURN_IF_ERROR(RequirePositive(reader, "timeout", probe.timeout));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDouble("jitter", probe.jitter));
  if (probe.jitter < 0 || probe.jitter >= 1) {
    return Invalid(reader.PathOf("jitter"), absl::StrCat("must be in [0, 1), got ", probe.jitter));
  }
  double window = probe.window;
  CARBONROUTE_RETURN_IF_ERROR(ReadWholeNumber(reader, "window", 1, 100000, window));
  probe.window = static_cast<int>(window);
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("stale_after", probe.stale_after));
  if (probe.stale_after < absl::ZeroDuration()) {
    return Invalid(reader.PathOf("stale_after"), "must not be negative");
  }
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("resolve_interval", probe.resolve_interval));
  CARBONROUTE_RETURN_IF_ERROR(RequirePositive(reader, "resolve_interval", probe.resolve_interval));
  CARBONROUTE_RETURN_IF_ERROR(ReadPort(reader, "tcp_port", probe.tcp_port));
  double histogram_max_peers = probe.histogram_max_peers;
  CARBONROUTE_RETURN_IF_ERROR(
      ReadWholeNumber(reader, "histogram_max_peers", 0, 100000, histogram_max_peers));
  probe.histogram_max_peers = static_cast<int>(histogram_max_peers);
  return reader.Finish();
}

// `protocol` (icmp|tcp) and `port` (tcp only).
absl::Status ReadProtocolAndPort(MappingReader& reader, ProbeProtocol& protocol, uint16_t& port) {
  std::string name = protocol == ProbeProtocol::kTcp ? "tcp" : "icmp";
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("protocol", name));
  if (name == "icmp") {
    protocol = ProbeProtocol::kIcmp;
  } else if (name == "tcp") {
    protocol = ProbeProtocol::kTcp;
  } else {
    return Invalid(reader.PathOf("protocol"),
                   absl::StrCat("must be icmp or tcp, got \"", name, "\""));
  }
  CARBONROUTE_RETURN_IF_ERROR(ReadPort(reader, "port", port));
  if (reader.Has("port") && protocol != ProbeProtocol::kTcp) {
    return Invalid(reader.PathOf("port"), "only tcp peers have a port (set protocol: tcp)");
  }
  return absl::OkStatus();
}

// The keys that say where the Kubernetes API is and how to authenticate
// (kube/kube_connection.h), read alike wherever a section talks to it.
struct KubeConnectionKeys {
  std::string& api_url;
  std::string& token_file;
  std::string& ca_file;
  std::string& kubeconfig;
  std::string& context;
};

absl::Status ReadKubeConnectionKeys(MappingReader& reader, const KubeConnectionKeys& keys) {
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("api_url", keys.api_url));
  if (!keys.api_url.empty() && !absl::StartsWith(keys.api_url, "http://") &&
      !absl::StartsWith(keys.api_url, "https://")) {
    return Invalid(reader.PathOf("api_url"),
                   absl::StrCat("expected an http:// or https:// URL, got \"", keys.api_url, "\""));
  }
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("token_file", keys.token_file));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("ca_file", keys.ca_file));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("kubeconfig", keys.kubeconfig));
  return reader.ReadString("context", keys.context);
}

absl::Status ReadKubernetesDiscovery(MappingReader& rtt_reader, KubernetesDiscoveryConfig& kube) {
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader discovery, rtt_reader.ReadMapping("discovery"));
  CARBONROUTE_RETURN_IF_ERROR(discovery.ExpectOnly({"kubernetes"}));
  kube.enabled = discovery.Has("kubernetes");
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader reader, discovery.ReadMapping("kubernetes"));
  CARBONROUTE_RETURN_IF_ERROR(
      reader.ExpectOnly({"api_url", "token_file", "ca_file", "kubeconfig", "context",
                         "label_selector", "region_locations", "protocol", "port", "page_size",
                         "watch_timeout", "request_timeout", "backoff_initial", "backoff_max"}));
  CARBONROUTE_RETURN_IF_ERROR(ReadKubeConnectionKeys(
      reader, {kube.api_url, kube.token_file, kube.ca_file, kube.kubeconfig, kube.context}));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("label_selector", kube.label_selector));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("region_locations", kube.region_locations));
  CARBONROUTE_RETURN_IF_ERROR(ReadProtocolAndPort(reader, kube.protocol, kube.port));
  double page_size = kube.page_size;
  CARBONROUTE_RETURN_IF_ERROR(ReadWholeNumber(reader, "page_size", 1, 100000, page_size));
  kube.page_size = static_cast<int>(page_size);
  for (auto [key, value] : {std::pair{"watch_timeout", &kube.watch_timeout},
                            std::pair{"request_timeout", &kube.request_timeout},
                            std::pair{"backoff_initial", &kube.backoff_initial},
                            std::pair{"backoff_max", &kube.backoff_max}}) {
    CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration(key, *value));
    CARBONROUTE_RETURN_IF_ERROR(RequirePositive(reader, key, *value));
  }
  if (kube.watch_timeout < absl::Seconds(1)) {
    return Invalid(reader.PathOf("watch_timeout"), "must be at least 1s (the API counts seconds)");
  }
  CARBONROUTE_RETURN_IF_ERROR(reader.Finish());
  return discovery.Finish();
}

absl::Status ReadPeerSelection(MappingReader& rtt_reader, PeerSelectionConfig& selection) {
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader reader, rtt_reader.ReadMapping("peer_selection"));
  CARBONROUTE_RETURN_IF_ERROR(reader.ExpectOnly({"mode", "same_zone", "per_remote_zone"}));
  std::string mode;
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("mode", mode));
  if (!mode.empty()) {
    bool known = false;
    for (const PeerSelectionMode m : {PeerSelectionMode::kAuto, PeerSelectionMode::kAll,
                                      PeerSelectionMode::kSampled, PeerSelectionMode::kNone}) {
      if (mode == PeerSelectionModeName(m)) {
        selection.mode = m;
        known = true;
      }
    }
    if (!known) {
      return Invalid(reader.PathOf("mode"),
                     absl::StrCat("must be auto, all, sampled or none, got \"", mode, "\""));
    }
  }
  double same_zone = selection.same_zone, per_remote_zone = selection.per_remote_zone;
  CARBONROUTE_RETURN_IF_ERROR(ReadWholeNumber(reader, "same_zone", 0, 100000, same_zone));
  CARBONROUTE_RETURN_IF_ERROR(
      ReadWholeNumber(reader, "per_remote_zone", 1, 100000, per_remote_zone));
  selection.same_zone = static_cast<int>(same_zone);
  selection.per_remote_zone = static_cast<int>(per_remote_zone);
  return reader.Finish();
}

absl::StatusOr<PeerConfig> ReadPeer(const YAML::Node& node, const std::string& path) {
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader reader, MappingReader::Create(node, path));
  CARBONROUTE_RETURN_IF_ERROR(
      reader.ExpectOnly({"name", "region", "zone", "location", "address", "protocol", "port"}));
  PeerConfig peer;
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("name", peer.name, /*required=*/true));
  if (peer.name.empty()) return Invalid(reader.PathOf("name"), "must not be empty");
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("region", peer.region));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("zone", peer.zone));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("location", peer.location));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("address", peer.address));
  CARBONROUTE_RETURN_IF_ERROR(ReadProtocolAndPort(reader, peer.protocol, peer.port));
  if (reader.Has("protocol") && peer.address.empty()) {
    return Invalid(reader.PathOf("address"),
                   "required when a protocol is given: there is nothing to probe");
  }
  CARBONROUTE_RETURN_IF_ERROR(reader.Finish());
  return peer;
}

absl::Status ReadRtt(MappingReader& root, RttConfig& rtt) {
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader reader, root.ReadMapping("rtt"));
  CARBONROUTE_RETURN_IF_ERROR(
      reader.ExpectOnly({"static_matrix", "probe", "peers", "discovery", "peer_selection"}));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("static_matrix", rtt.static_matrix));
  CARBONROUTE_RETURN_IF_ERROR(ReadProbe(reader, rtt.probe));
  CARBONROUTE_RETURN_IF_ERROR(ReadKubernetesDiscovery(reader, rtt.kubernetes));
  CARBONROUTE_RETURN_IF_ERROR(ReadPeerSelection(reader, rtt.peer_selection));
  CARBONROUTE_ASSIGN_OR_RETURN(std::vector<YAML::Node> peers, reader.ReadSequence("peers"));
  std::set<std::string> names;
  for (std::size_t i = 0; i < peers.size(); ++i) {
    const std::string path = absl::StrCat(reader.PathOf("peers"), "[", i, "]");
    CARBONROUTE_ASSIGN_OR_RETURN(PeerConfig peer, ReadPeer(peers[i], path));
    if (!names.insert(peer.name).second) {
      return Invalid(absl::StrCat(path, ".name"),
                     absl::StrCat("duplicate peer \"", peer.name, "\""));
    }
    if (peer.address.empty() && rtt.static_matrix.empty()) {
      return Invalid(
          absl::StrCat(path, ".address"),
          absl::StrCat(
              "peer \"", peer.name,
              "\" has neither an address to probe nor a static_matrix to declare its RTT"));
    }
    rtt.peers.push_back(std::move(peer));
  }
  return absl::OkStatus();
}

// A DNS-1123 subdomain (an object's name or a namespace): lower-case
// alphanumerics, '-' and '.', starting and ending alphanumeric, at most 253.
bool IsDnsSubdomain(absl::string_view name) {
  if (name.empty() || name.size() > 253 || !absl::ascii_isalnum(name.front()) ||
      !absl::ascii_isalnum(name.back())) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (absl::ascii_isalnum(c) && !absl::ascii_isupper(c)) || c == '-' || c == '.';
  });
}

absl::Status ReadKedaConfigMap(const YAML::Node& node, const std::string& path,
                               KedaConfigMapConfig& out) {
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader reader, MappingReader::Create(node, path));
  CARBONROUTE_RETURN_IF_ERROR(reader.ExpectOnly({"location", "name", "namespace", "key"}));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("location", out.location, /*required=*/true));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("name", out.name));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("namespace", out.namespace_name));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadString("key", out.key));
  for (auto [key, value] :
       {std::pair{"name", &out.name}, std::pair{"namespace", &out.namespace_name}}) {
    if (!IsDnsSubdomain(*value)) {
      return Invalid(reader.PathOf(key),
                     absl::StrCat("\"", *value,
                                  "\" is not a Kubernetes name (lower-case letters, digits, '-' "
                                  "and '.', starting and ending with a letter or digit)"));
    }
  }
  if (out.key.empty() || out.key.size() > 253 ||
      !std::all_of(out.key.begin(), out.key.end(), [](char c) {
        return absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.';
      })) {
    return Invalid(reader.PathOf("key"),
                   absl::StrCat("\"", out.key,
                                "\" is not a ConfigMap key (letters, digits, '-', '_' and '.')"));
  }
  return reader.Finish();
}

absl::Status ReadPublish(MappingReader& root, PublishConfig& publish) {
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader reader, root.ReadMapping("publish"));
  CARBONROUTE_RETURN_IF_ERROR(
      reader.ExpectOnly({"keda_configmaps", "api_url", "token_file", "ca_file", "kubeconfig",
                         "context", "lease", "history"}));
  CARBONROUTE_ASSIGN_OR_RETURN(std::vector<YAML::Node> configmaps,
                               reader.ReadSequence("keda_configmaps"));
  std::set<std::string> seen;
  for (std::size_t i = 0; i < configmaps.size(); ++i) {
    const std::string path = absl::StrCat(reader.PathOf("keda_configmaps"), "[", i, "]");
    KedaConfigMapConfig configmap;
    CARBONROUTE_RETURN_IF_ERROR(ReadKedaConfigMap(configmaps[i], path, configmap));
    const std::string where =
        absl::StrCat(configmap.namespace_name, "/", configmap.name, " key ", configmap.key);
    if (!seen.insert(where).second) {
      return Invalid(path, absl::StrCat("ConfigMap ", where, " is written twice"));
    }
    publish.keda_configmaps.push_back(std::move(configmap));
  }
  CARBONROUTE_RETURN_IF_ERROR(ReadKubeConnectionKeys(
      reader,
      {publish.api_url, publish.token_file, publish.ca_file, publish.kubeconfig, publish.context}));
  CARBONROUTE_RETURN_IF_ERROR(reader.ReadDuration("history", publish.history));
  if (publish.history < absl::ZeroDuration()) {
    return Invalid(reader.PathOf("history"), "must not be negative");
  }
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader lease, reader.ReadMapping("lease"));
  CARBONROUTE_RETURN_IF_ERROR(lease.ExpectOnly({"name", "namespace", "duration"}));
  CARBONROUTE_RETURN_IF_ERROR(lease.ReadString("name", publish.lease_name));
  CARBONROUTE_RETURN_IF_ERROR(lease.ReadString("namespace", publish.lease_namespace));
  CARBONROUTE_RETURN_IF_ERROR(lease.ReadDuration("duration", publish.lease_duration));
  CARBONROUTE_RETURN_IF_ERROR(RequirePositive(lease, "duration", publish.lease_duration));
  if (publish.lease_namespace.empty() && !publish.keda_configmaps.empty()) {
    publish.lease_namespace = publish.keda_configmaps.front().namespace_name;
  }
  CARBONROUTE_RETURN_IF_ERROR(lease.Finish());
  return reader.Finish();
}

// The emissions type a provider's readings have, as the provider types give it.
EmissionsType EmissionsTypeOf(const ProviderConfig& provider) {
  switch (provider.type) {
    case ProviderType::kWattTime:
      return EmissionsType::kMarginal;
    case ProviderType::kStatic:
      return provider.static_values.emissions_type;
    default:  // Electricity Maps, UK Carbon Intensity, and replay's Electricity Maps trace
      return EmissionsType::kAverage;
  }
}

// `fallback`: a list of {providers: [names, in order], locations: [...]} (locations optional).
absl::Status ReadFallback(MappingReader& root, CollectorConfig& config) {
  CARBONROUTE_ASSIGN_OR_RETURN(std::vector<YAML::Node> entries, root.ReadSequence("fallback"));
  std::map<std::string, std::string> claimed;  // location → the entry's path that names it
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string path = absl::StrCat("fallback[", i, "]");
    CARBONROUTE_ASSIGN_OR_RETURN(MappingReader reader, MappingReader::Create(entries[i], path));
    CARBONROUTE_RETURN_IF_ERROR(reader.ExpectOnly({"providers", "locations"}));
    FallbackConfig fallback;
    if (!reader.Has("providers")) {
      return Invalid(reader.PathOf("providers"), "required key is missing");
    }
    CARBONROUTE_RETURN_IF_ERROR(reader.ReadStringList("providers", fallback.providers));
    CARBONROUTE_RETURN_IF_ERROR(reader.ReadStringList("locations", fallback.locations));
    CARBONROUTE_RETURN_IF_ERROR(reader.Finish());
    if (fallback.providers.size() < 2) {
      return Invalid(reader.PathOf("providers"),
                     "name at least two providers, the preferred one first");
    }
    std::vector<const ProviderConfig*> chain;
    std::vector<std::string> names;
    for (const ProviderConfig& provider : config.providers) names.push_back(provider.name);
    for (std::size_t k = 0; k < fallback.providers.size(); ++k) {
      const std::string& name = fallback.providers[k];
      auto it = std::find_if(config.providers.begin(), config.providers.end(),
                             [&](const ProviderConfig& p) { return p.name == name; });
      if (it == config.providers.end()) {
        const std::string closest = ClosestMatch(name, names);
        return Invalid(
            absl::StrCat(reader.PathOf("providers"), "[", k, "]"),
            absl::StrCat("no provider is named \"", name, "\"",
                         closest.empty() ? "" : absl::StrCat(" (did you mean ", closest, "?)"),
                         "; the providers are: ", absl::StrJoin(names, ", ")));
      }
      chain.push_back(&*it);
      if (EmissionsTypeOf(*it) != EmissionsTypeOf(*chain.front())) {
        return Invalid(
            absl::StrCat(reader.PathOf("providers"), "[", k, "]"),
            absl::StrCat("\"", name, "\" gives ", EmissionsTypeName(EmissionsTypeOf(*it)),
                         " emissions and \"", chain.front()->name, "\" ",
                         EmissionsTypeName(EmissionsTypeOf(*chain.front())),
                         ": a location's fallback never mixes marginal with average"));
      }
    }
    // Each location: polled by the first and by a later one (providers whose locations follow
    // the cluster's Nodes are taken at their word); named by one entry only.
    auto polls = [](const ProviderConfig& provider, const std::string& location) {
      return provider.locations_from_nodes ||
             std::find(provider.locations.begin(), provider.locations.end(), location) !=
                 provider.locations.end();
    };
    for (std::size_t j = 0; j < fallback.locations.size(); ++j) {
      const std::string& location = fallback.locations[j];
      const std::string item = absl::StrCat(reader.PathOf("locations"), "[", j, "]");
      if (!polls(*chain.front(), location)) {
        return Invalid(item, absl::StrCat("\"", location, "\" is not a location of \"",
                                          chain.front()->name, "\", the preferred provider"));
      }
      if (std::none_of(chain.begin() + 1, chain.end(),
                       [&](const ProviderConfig* p) { return polls(*p, location); })) {
        return Invalid(
            item, absl::StrCat("\"", location, "\" is a location of none of the providers after \"",
                               chain.front()->name, "\": nothing to fall back to"));
      }
      if (auto [at, added] = claimed.emplace(location, item); !added) {
        return Invalid(
            item, absl::StrCat("\"", location, "\" already has a fallback (", at->second, ")"));
      }
    }
    config.poll.fallback.push_back(std::move(fallback));
  }
  return absl::OkStatus();
}

absl::StatusOr<CollectorConfig> ParseDocument(const YAML::Node& document,
                                              absl::string_view node_name) {
  CARBONROUTE_ASSIGN_OR_RETURN(MappingReader root, MappingReader::Create(document, ""));
  CARBONROUTE_RETURN_IF_ERROR(root.ExpectOnly({"listen_address", "database", "log_level", "node",
                                               "poll", "providers", "rtt", "publish", "fallback"}));
  CollectorConfig config;
  CARBONROUTE_RETURN_IF_ERROR(root.ReadString("listen_address", config.listen_address));
  CARBONROUTE_RETURN_IF_ERROR(ValidateListenAddress(config.listen_address));
  CARBONROUTE_RETURN_IF_ERROR(root.ReadString("database", config.database));
  if (config.database.empty()) return Invalid("database", "must not be empty");
  CARBONROUTE_RETURN_IF_ERROR(root.ReadString("log_level", config.log_level));
  if (std::find(std::begin(kLogLevels), std::end(kLogLevels), config.log_level) ==
      std::end(kLogLevels)) {
    return Invalid("log_level",
                   absl::StrCat("unknown level \"", config.log_level,
                                "\"; expected one of: ", absl::StrJoin(kLogLevels, ", ")));
  }
  CARBONROUTE_RETURN_IF_ERROR(ReadNode(root, config.node));
  if (!node_name.empty()) config.node.name = std::string(node_name);
  CARBONROUTE_RETURN_IF_ERROR(ReadPoll(root, config.poll));
  CARBONROUTE_RETURN_IF_ERROR(ReadRtt(root, config.rtt));
  CARBONROUTE_RETURN_IF_ERROR(ReadPublish(root, config.publish));
  if (config.node.name.empty() && ExportsNodeInfo(config)) {
    return Invalid("node.name",
                   ProbesPeers(config)
                       ? "required key is missing: this configuration probes peers, and their "
                         "RTT series name this node as their source"
                       : "required key is missing: carbonroute_node_info names this node (only "
                         "the carbon role, rtt.peer_selection.mode: none with discovery, has "
                         "none); set node.name, or --node-name from the downward API");
  }

  // No provider (absent or []) is the latency role: probes only.
  CARBONROUTE_ASSIGN_OR_RETURN(std::vector<YAML::Node> providers, root.ReadSequence("providers"));
  std::set<std::string> names;
  for (std::size_t i = 0; i < providers.size(); ++i) {
    const std::string path = absl::StrCat("providers[", i, "]");
    CARBONROUTE_ASSIGN_OR_RETURN(ProviderConfig provider, ReadProvider(providers[i], path));
    if (!names.insert(provider.name).second) {
      return Invalid(absl::StrCat(path, ".name"),
                     absl::StrCat("duplicate provider name \"", provider.name,
                                  "\"; give each provider a unique name"));
    }
    if (provider.locations_from_nodes && !config.rtt.kubernetes.enabled) {
      return Invalid(absl::StrCat(path, ".locations"),
                     "\"nodes\" needs rtt.discovery.kubernetes: the Nodes it lists are where "
                     "the locations come from");
    }
    config.providers.push_back(std::move(provider));
  }
  CARBONROUTE_RETURN_IF_ERROR(ReadFallback(root, config));
  CARBONROUTE_RETURN_IF_ERROR(root.Finish());
  return config;
}

}  // namespace

bool ExportsNodeInfo(const CollectorConfig& config) {
  return !(config.rtt.kubernetes.enabled &&
           config.rtt.peer_selection.mode == PeerSelectionMode::kNone);
}

bool ProbesPeers(const CollectorConfig& config) {
  if (config.rtt.kubernetes.enabled && config.rtt.peer_selection.mode != PeerSelectionMode::kNone) {
    return true;
  }
  return std::any_of(config.rtt.peers.begin(), config.rtt.peers.end(),
                     [](const PeerConfig& peer) { return !peer.address.empty(); });
}

absl::string_view ProviderTypeName(ProviderType type) {
  switch (type) {
    case ProviderType::kReplay:
      return "replay";
    case ProviderType::kStatic:
      return "static";
    case ProviderType::kWattTime:
      return "watttime";
    case ProviderType::kElectricityMaps:
      return "electricity_maps";
    case ProviderType::kUkCarbonIntensity:
      return "uk_carbon_intensity";
  }
  return "unknown";
}

absl::string_view PeerSelectionModeName(PeerSelectionMode mode) {
  switch (mode) {
    case PeerSelectionMode::kAuto:
      return "auto";
    case PeerSelectionMode::kAll:
      return "all";
    case PeerSelectionMode::kSampled:
      return "sampled";
    case PeerSelectionMode::kNone:
      return "none";
  }
  return "unknown";
}

absl::StatusOr<CollectorConfig> ParseCollectorConfig(absl::string_view yaml,
                                                     absl::string_view origin,
                                                     absl::string_view node_name) {
  YAML::Node document;
  try {
    document = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        origin, ":", e.mark.line + 1, ":", e.mark.column + 1, ": YAML syntax error: ", e.msg));
  }
  absl::StatusOr<CollectorConfig> config = ParseDocument(document, node_name);
  if (!config.ok()) {
    return absl::Status(config.status().code(),
                        absl::StrCat(origin, ": ", config.status().message()));
  }
  return config;
}

absl::StatusOr<CollectorConfig> LoadCollectorConfig(const std::string& path,
                                                    absl::string_view node_name) {
  CARBONROUTE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path, "config file"));
  return ParseCollectorConfig(text, path, node_name);
}

}  // namespace carbonroute

namespace carbonroute {
namespace {

// Every collection in block style, so that `{name: a}` and `name: a` on its own line compare equal.
void BlockStyle(YAML::Node node) {
  node.SetStyle(YAML::EmitterStyle::Block);
  if (node.IsMap()) {
    for (auto entry : node) BlockStyle(entry.second);
  } else if (node.IsSequence()) {
    for (auto item : node) BlockStyle(item);
  }
}

// Top-level key → its YAML as yaml-cpp writes it back (layout and comments gone).
std::vector<std::pair<std::string, std::string>> Sections(absl::string_view text) {
  std::vector<std::pair<std::string, std::string>> sections;
  try {
    const YAML::Node document = YAML::Load(std::string(text));
    if (!document.IsMap()) return sections;
    for (const auto& entry : document) {
      YAML::Node value = YAML::Clone(entry.second);
      BlockStyle(value);
      YAML::Emitter out;
      out << value;
      sections.emplace_back(entry.first.as<std::string>(), out.c_str());
    }
  } catch (const YAML::Exception&) {
    sections.clear();
  }
  return sections;
}

}  // namespace

std::vector<std::string> ChangedSections(absl::string_view before, absl::string_view after,
                                         const std::set<std::string>& ignored) {
  const auto old_sections = Sections(before);
  const auto new_sections = Sections(after);
  auto find = [](const auto& sections, const std::string& key) -> const std::string* {
    for (const auto& [name, yaml] : sections) {
      if (name == key) return &yaml;
    }
    return nullptr;
  };
  std::vector<std::string> changed;
  auto consider = [&](const std::string& key) {
    if (ignored.count(key) > 0 || std::find(changed.begin(), changed.end(), key) != changed.end()) {
      return;
    }
    const std::string* was = find(old_sections, key);
    const std::string* is = find(new_sections, key);
    if (was == nullptr || is == nullptr || *was != *is) changed.push_back(key);
  };
  for (const auto& section : old_sections) consider(section.first);
  for (const auto& section : new_sections) consider(section.first);
  return changed;
}

}  // namespace carbonroute
