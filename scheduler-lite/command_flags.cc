#include "scheduler-lite/command_flags.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/data_files.h"
#include "base/duration_text.h"
#include "base/status_macros.h"
#include "base/usage.h"
#include "cli/logging.h"
#include "contract/emissions_type.h"
#include "model_sources/metrics_source.h"
#include "model_sources/model_builder.h"
#include "model_sources/rtt_sources.h"

namespace carbonroute::scheduler_lite {

using model_sources::LoadedModel;
using model_sources::LoadModel;
using model_sources::ModelSources;
using placement::PlacementModel;

// A file named on the command line is read now, as the model will read it: a
// malformed one is a usage error (exit 2) naming the flag and the line, not a
// warning a ranking then hides (the default data files are the project's own).
CLI::Validator ReadableAs(absl::Status (model_sources::ModelBuilder::*add)(absl::string_view,
                                                                           absl::string_view),
                          const std::string& what) {
  return CLI::Validator(
      [add, what](std::string& path) -> std::string {
        absl::StatusOr<std::string> text = ReadFileToString(path, what);
        if (!text.ok()) return std::string(text.status().message());
        model_sources::ModelBuilder scratch(absl::Now());  // only the file is read
        const absl::Status read = (scratch.*add)(*text, path);
        if (read.ok()) return "";
        return absl::StrCat("not ", what, ": ", read.message());
      },
      "FILE");
}

absl::Duration DurationFlag(const std::string& text, const char* flag) {
  const std::optional<absl::Duration> d = ParseDurationText(text);
  if (!d || *d <= absl::ZeroDuration()) {
    throw CLI::ValidationError(
        flag, "expected a positive duration such as 90m, 2h or 7d, got \"" + text + "\"");
  }
  return *d;
}

std::vector<double> NumberListFlag(const std::string& text, const char* flag, double min,
                                   double max_exclusive, const char* expected) {
  std::vector<double> values;
  const bool several = absl::StrContains(text, ',');
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    item = absl::StripAsciiWhitespace(item);
    double value = 0;
    if (!absl::SimpleAtod(item, &value) || !std::isfinite(value) || value < min ||
        value >= max_exclusive) {
      // The item alone when it is the whole text; else where in the list it is.
      throw CLI::ValidationError(flag, std::string("expected ") + expected + ", got \"" +
                                           std::string(item) + "\"" +
                                           (several ? " in \"" + text + "\"" : std::string()));
    }
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  return values;
}

CLI::Validator AtLeastZero() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (absl::SimpleAtod(text, &value) && std::isfinite(value) && value >= 0) return "";
        return "expected a number ≥ 0, got \"" + text + "\"";
      },
      "NUMBER ≥ 0");
}

void AddScoringFlags(CLI::App& cmd, double& carbon_weight, double& latency_weight,
                     double& carbon_tolerance, const std::string& whose) {
  cmd.add_option("--carbon-weight", carbon_weight, whose + "w_c, the weight of carbon")
      ->check(AtLeastZero())
      ->capture_default_str();
  cmd.add_option("--latency-weight", latency_weight, whose + "w_l, the weight of latency")
      ->check(AtLeastZero())
      ->capture_default_str();
  cmd.add_option("--carbon-tolerance", carbon_tolerance,
                 whose + "τ, gCO2eq/kWh: within this of the cleanest, the nearer candidate wins")
      ->check(AtLeastZero())
      ->capture_default_str();
}

std::vector<double> LatencyLimitsFlag(const std::string& text, const char* flag) {
  return NumberListFlag(text, flag, 0, INFINITY, "latency limits in ms ≥ 0 such as 50,100,150");
}

absl::Status FillDefaultDataFiles(
    const std::vector<std::string>& dirs,
    std::initializer_list<std::pair<std::string*, const char*>> files) {
  for (const auto& [path, name] : files) {
    if (!path->empty()) continue;
    absl::StatusOr<std::string> found = FindDataFile(name, DataPathsFrom(dirs, "data"));
    if (!found.ok()) return found.status();
    *path = *std::move(found);
  }
  return absl::OkStatus();
}

void ClientFlags::AddTo(CLI::App& cmd) {
  // The sources' TLS and credentials, as a Prometheus scrape_config has them.
  cmd.add_option("--ca-file", auth_.ca_file,
                 "PEM CA bundle that https sources are verified against")
      ->check(CLI::ExistingFile);
  CLI::Option* cert = cmd.add_option("--client-cert", auth_.client_cert_file,
                                     "PEM client certificate presented to the sources")
                          ->check(CLI::ExistingFile);
  CLI::Option* key =
      cmd.add_option("--client-key", auth_.client_key_file, "PEM key of --client-cert")
          ->check(CLI::ExistingFile);
  cert->needs(key);
  key->needs(cert);
  CLI::Option* user = cmd.add_option("--basic-auth-user", auth_.basic_auth_user,
                                     "HTTP Basic auth user for the sources");
  CLI::Option* password =
      cmd.add_option("--basic-auth-password-file", auth_.basic_auth_password_file,
                     "file holding the Basic auth password (read before each request)")
          ->check(CLI::ExistingFile);
  user->needs(password);
  password->needs(user);
  cmd.add_option("--bearer-token-file", auth_.bearer_token_file,
                 "file holding a bearer token (read before each request)")
      ->check(CLI::ExistingFile)
      ->excludes(user);
}

void SourceFlags::AddTo(CLI::App& cmd) {
  cmd.add_option("--metrics", metrics_,
                 "a collector's /metrics URL (repeatable; default http://127.0.0.1:9464/metrics)");
  CLI::Option* prometheus = cmd.add_option(
      "--prometheus", prometheus_, "a Prometheus server's base URL, e.g. http://127.0.0.1:9090");
  std::vector<std::string> names;
  for (RttExporter source : kRttExporters) {
    names.emplace_back(RttExporterName(source));
  }
  cmd.add_option("--rtt-source", rtt_sources_,
                 "where measured RTTs come from, through --prometheus (repeatable, first with a "
                 "pair wins; default carbonroute): " +
                     absl::StrJoin(names, ", ") + " (the queries: below)")
      ->check(CLI::IsMember(names))
      ->needs(prometheus);
  cmd.footer(model_sources::RttSourcesHelp());
  cmd.add_option("--rtt-matrix", rtt_matrix_,
                 std::string("static RTT matrix CSV sending_region,receiving_region,milliseconds "
                             "(default: data/") +
                     kInterRegionRttFile + ")")
      ->check(CLI::ExistingFile)
      ->check(ReadableAs(&model_sources::ModelBuilder::AddStaticRttCsv, "an RTT matrix"));
  cmd.add_option(
         "--region-zones", region_zones_,
         std::string("region → grid zone table: cloud-regions.csv's columns, or gcp_region,zone "
                     "(default: data/") +
             kRegionZonesFile + ")")
      ->check(CLI::ExistingFile)
      ->check(ReadableAs(&model_sources::ModelBuilder::AddRegionLocationsCsv, "a region table"));
  cmd.add_option("--data-dir", data_dirs_,
                 "directory searched first for the default data files (repeatable)");
  cmd.add_option("--emissions-type", emissions_type_, "preferred signal where a location has both")
      ->check(CLI::IsMember({"average", "marginal"}))
      ->capture_default_str();
  client_.AddTo(cmd);
}

bool SourceFlags::Resolve(ModelSources& sources, std::ostream& err) const {
  sources = ModelSources();
  sources.metrics_urls = metrics_;
  sources.prometheus_url = prometheus_;
  if (sources.empty()) {
    sources.metrics_urls = {"http://127.0.0.1:9464/metrics"};
    sources.default_source = true;
  }
  sources.rtt_matrix_csv = rtt_matrix_;
  sources.region_locations_csv = region_zones_;
  const absl::Status found =
      FillDefaultDataFiles(data_dirs_, {{&sources.rtt_matrix_csv, kInterRegionRttFile},
                                        {&sources.region_locations_csv, kRegionZonesFile}});
  if (!found.ok()) {
    err << "scheduler-lite: " << found.message()
        << " (give --rtt-matrix/--region-zones or --data-dir)\n";
    return false;
  }
  // Checked by IsMember.
  sources.emissions_type = *ParseEmissionsType(emissions_type_);
  if (!rtt_sources_.empty()) {
    sources.rtt_sources.clear();
    for (const std::string& name : rtt_sources_) {
      const RttExporter source = *ParseRttExporter(name);
      if (std::find(sources.rtt_sources.begin(), sources.rtt_sources.end(), source) ==
          sources.rtt_sources.end()) {
        sources.rtt_sources.push_back(source);
      }
    }
  }
  sources.auth = client_.auth();
  return true;
}

std::shared_ptr<const PlacementModel> LoadModelOrSay(const ModelSources& sources,
                                                     net::HttpClient& http, Clock& clock,
                                                     std::ostream& err) {
  LoadedModel loaded = LoadModel(sources, http, clock.Now());
  for (const absl::Status& error : loaded.errors)
    err << "scheduler-lite: warning: " << error.message() << "\n";
  // --emissions-type is a preference: say where the other kind had to do.
  std::vector<std::string> fallback;
  for (const auto& [location, carbon] : loaded.model->Readings()) {
    if (carbon->emissions_type != sources.emissions_type) fallback.emplace_back(location);
  }
  if (!fallback.empty() && sources.emissions_type == EmissionsType::kMarginal) {
    std::sort(fallback.begin(), fallback.end());
    err << "scheduler-lite: note: no marginal signal for " << absl::StrJoin(fallback, ", ")
        << ": scored on average emissions there\n";
  }
  if (loaded.sources_read == 0) {
    err << "scheduler-lite: no source could be read"
        << (sources.default_source ? " (give --metrics URL or --prometheus URL)" : "") << "\n";
    return nullptr;
  }
  return loaded.model;
}

std::unique_ptr<controller_runtime::ControllerManager> StartControllerManager(
    const KubeFlags& kube, const cli::DaemonFlags& daemon, const LeaseFlags& lease,
    std::string component, std::string title, net::HttpClient& http, std::ostream& err) {
  kube::KubeConnection connection;
  if (!kube.Resolve(connection, err)) return nullptr;
  cli::InstallLogger(daemon.log_format(), daemon.log_level().value_or(LogLevel::kInfo));
  return std::make_unique<controller_runtime::ControllerManager>(
      connection, http,
      controller_runtime::ManagerOptions{.component = std::move(component),
                                         .lease = lease.options(),
                                         .listen_address = daemon.listen_address(),
                                         .web = daemon.web(),
                                         .title = std::move(title)});
}

void LeaseFlags::AddTo(CLI::App& cmd) {
  cmd.add_option("--lease-namespace", options_.namespace_name,
                 "elect one acting replica with a Lease in this namespace (default: "
                 "$POD_NAMESPACE; empty: act alone)");
  cmd.add_option("--lease-name", options_.name, "the Lease's name")->capture_default_str();
  cmd.add_option("--identity", options_.identity,
                 "this replica's name in the Lease (default: $POD_NAME, else host-pid)");
}

void LeaseFlags::Fill() {
  if (options_.namespace_name.empty()) {
    if (const char* ns = std::getenv("POD_NAMESPACE"); ns != nullptr) options_.namespace_name = ns;
  }
  if (options_.identity.empty()) options_.identity = kube::ReplicaIdentity();
}

namespace {

// A number of watts: 0 or more ("-1" names itself in the message).
const CLI::Validator kWatts(
    [](const std::string& text) -> std::string {
      double value = 0;
      if (!absl::SimpleAtod(text, &value) || !(value >= 0) || !std::isfinite(value)) {
        return "must be a number of watts, 0 or more, got \"" + text + "\"";
      }
      return "";
    },
    "W");

}  // namespace

void PowerModelFlags::AddTo(CLI::App& cmd) {
  cmd.add_option("--watts-per-cpu", model_.watts_per_cpu,
                 "ledger: W per requested CPU core where no measurement exists (Cloud Carbon "
                 "Footprint's coefficients at 50 % utilisation)")
      ->check(kWatts)
      ->capture_default_str();
  cmd.add_option("--watts-per-gb", model_.watts_per_gb,
                 "ledger: W per GB of requested memory (Cloud Carbon Footprint)")
      ->check(kWatts)
      ->capture_default_str();
  cmd.add_option("--watts-per-gpu", model_.watts_per_gpu,
                 "ledger: W per requested GPU (Compute Gardener's dry-run model)")
      ->check(kWatts)
      ->capture_default_str();
}

void KubeFlags::AddTo(CLI::App& cmd) {
  cmd.add_option("--kubeconfig", options_.kubeconfig,
                 "kubeconfig file of the Kubernetes API (default: $KUBECONFIG, else the Pod's "
                 "service account, else ~/.kube/config)");
  cmd.add_option("--kube-context", options_.context,
                 "the kubeconfig's context to use (default: its current-context)");
  cmd.add_option("--kube-api-url", options_.api_url,
                 "the Kubernetes API's URL, instead of a kubeconfig (http:// for kubectl proxy)")
      ->check([](const std::string& url) -> std::string {
        if (absl::StartsWith(url, "http://") || absl::StartsWith(url, "https://")) return "";
        return "expected an http:// or https:// URL, got \"" + url + "\"";
      });
  cmd.add_option("--kube-token-file", options_.token_file,
                 "bearer token file, read before every request (overrides the kubeconfig's; "
                 "default in a Pod: the service account's)");
  cmd.add_option("--kube-ca-file", options_.ca_file,
                 "CA of the API server (overrides the kubeconfig's; default in a Pod: the "
                 "service account's)");
}

void KubeFlags::AddWatchTimeoutTo(CLI::App& cmd) {
  cmd.add_option("--watch-timeout", watch_timeout_,
                 "how long the API server keeps each watch open before it is started again "
                 "from the last version (the watch's timeoutSeconds; at least 1s)")
      ->capture_default_str()
      ->check([](const std::string& text) -> std::string {
        absl::Duration d;
        if (absl::ParseDuration(text, &d) && d >= absl::Seconds(1)) return "";
        return "expected a duration of at least 1s (the API counts whole seconds) such as 30s "
               "or 5m, got \"" +
               text + "\"";
      });
}

absl::Duration KubeFlags::watch_timeout() const {
  absl::Duration d = kube::kDefaultWatchTimeout;
  if (!absl::ParseDuration(watch_timeout_, &d)) return kube::kDefaultWatchTimeout;
  return d;
}

bool KubeFlags::Named() const {
  return !options_.kubeconfig.empty() || !options_.context.empty() || !options_.api_url.empty() ||
         !options_.token_file.empty() || !options_.ca_file.empty();
}

int KubeFlags::ResolveExitCode() const { return Named() ? kUsageExitCode : 1; }

bool KubeFlags::Resolve(kube::KubeConnection& connection, std::ostream& err) const {
  absl::StatusOr<kube::KubeConnection> resolved = kube::ResolveKubeConnection(
      options_, {.getenv = [](const char* name) { return std::getenv(name); }});
  if (!resolved.ok()) {
    err << "scheduler-lite: " << resolved.status().message() << "\n";
    return false;
  }
  connection = *std::move(resolved);
  return true;
}

cli::DaemonFlagDefaults ControllerDaemonDefaults(std::string listen_address) {
  return {.listen_address = std::move(listen_address),
          .served = "--controller's /metrics and /healthz"};
}

ModelControllerStart StartModelController(const SourceFlags& sources, const KubeFlags& kube,
                                          const cli::DaemonFlags& daemon, const LeaseFlags& lease,
                                          std::string component, std::string title,
                                          net::HttpClient& http, std::ostream& err) {
  ModelControllerStart start;
  if (!sources.Resolve(start.sources, err)) {
    start.exit_code = 1;
    return start;
  }
  start.manager = StartControllerManager(kube, daemon, lease, std::move(component),
                                         std::move(title), http, err);
  if (start.manager == nullptr) start.exit_code = kube.ResolveExitCode();
  return start;
}

}  // namespace carbonroute::scheduler_lite
