#include "scheduler-lite/hold_command.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/data_files.h"
#include "base/log_line.h"
#include "contract/region_locations.h"
#include "exporter/metrics_page.h"
#include "hold/forecast_source.h"
#include "hold/hold_controller.h"
#include "hold/hold_metrics.h"
#include "kube/event_recorder.h"
#include "kube/kube_client.h"
#include "kube/lease_election.h"
#include "net/http_server.h"
#include "net/web_config.h"
#include "prometheus/registry.h"
#include "scheduler-lite/command_flags.h"

namespace carbonroute::scheduler_lite {
namespace {

void UrlFlag(const std::string& url, const char* flag) {
  if (!absl::StartsWith(url, "http://") && !absl::StartsWith(url, "https://")) {
    throw CLI::ValidationError(flag, "expected an http:// or https:// URL, got \"" + url + "\"");
  }
}

// This replica's name in the Lease: the Pod's (POD_NAME, from the downward
// API), else the host's and the process's.
std::string DefaultIdentity() {
  if (const char* pod = std::getenv("POD_NAME"); pod != nullptr && *pod != '\0') return pod;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return absl::StrCat(host, "-", getpid());
}

class HoldSubcommand final : public Subcommand {
 public:
  const char* name() const override { return "hold"; }
  const char* description() const override {
    return "hold opted-in Jobs and Pods until the cleanest window before their deadline";
  }
  void AddFlags(CLI::App& cmd) override {
    cmd.add_option("--collector", collectors_,
                   "collector base URL serving the forecast API (repeatable: the carbon role's "
                   "replicas, asked in turn)")
        ->capture_default_str();
    client_.AddTo(cmd);
    kube_.AddTo(cmd);
    cmd.add_option("--selector", options_.selector, "label selector of the objects to hold")
        ->capture_default_str();
    cmd.add_option("--resync", resync_,
                   "how often Jobs and Pods are listed again (between lists they are watched)")
        ->capture_default_str();
    cmd.add_option("--forecast-refresh", forecast_refresh_,
                   "how often a location's forecast is read again")
        ->capture_default_str();
    cmd.add_option("--lease-namespace", lease_.namespace_name,
                   "elect one acting replica with a Lease in this namespace (default: "
                   "$POD_NAMESPACE; empty: act alone)");
    cmd.add_option("--lease-name", lease_.name, "the Lease's name")->capture_default_str();
    cmd.add_option("--identity", lease_.identity,
                   "this replica's name in the Lease (default: $POD_NAME, else host-pid)");
    cmd.add_option("--region-zones", region_zones_,
                   std::string("region → grid location CSV, for node selectors naming a region "
                               "(default: data/") +
                       kRegionZonesFile + ")");
    cmd.add_option("--data-dir", data_dirs_, "directory searched first for the default data files");
    cmd.add_option("--web.listen-address", listen_, "host:port of /metrics and /healthz")
        ->capture_default_str();
    daemon_.AddTo(cmd);
  }
  void Validate() override {
    for (const std::string& url : collectors_) UrlFlag(url, "--collector");
    options_.resync = DurationFlag(resync_, "--resync");
    options_.forecast_refresh = DurationFlag(forecast_refresh_, "--forecast-refresh");
    options_.watch = true;
    if (options_.selector.empty()) {
      throw CLI::ValidationError("--selector", "must not be empty (it would hold every Job)");
    }
    ListenFlag(listen_, "--web.listen-address");
    if (lease_.namespace_name.empty()) {
      if (const char* ns = std::getenv("POD_NAMESPACE"); ns != nullptr) lease_.namespace_name = ns;
    }
    if (lease_.identity.empty()) lease_.identity = DefaultIdentity();
  }
  bool WatchesStopSignals() const override { return true; }
  int Run(ProgramContext& c) override;

 private:
  std::vector<std::string> collectors_ = {"http://127.0.0.1:9464"};
  ClientFlags client_;
  KubeFlags kube_;
  hold::HoldControllerOptions options_;
  std::string resync_ = "30s";
  std::string forecast_refresh_ = "5m";
  kube::LeaseOptions lease_{.name = "carbonroute-hold"};
  std::string region_zones_;
  std::vector<std::string> data_dirs_;
  std::string listen_ = "127.0.0.1:9466";
  DaemonFlags daemon_;
};

int HoldSubcommand::Run(ProgramContext& c) {
  net::WebConfig web;  // read first: a mistake in it is a usage error
  if (!LoadWebConfigFlag(daemon_.web_config_file(), web, c.err)) return 2;
  if (absl::Status found = FillDefaultDataFiles(data_dirs_, {{&region_zones_, kRegionZonesFile}});
      !found.ok()) {
    c.err << "scheduler-lite: " << found.message() << " (give --region-zones or --data-dir)\n";
    return 2;
  }
  absl::StatusOr<std::string> regions_text = ReadFileToString(region_zones_, "region map");
  if (!regions_text.ok()) {
    c.err << "scheduler-lite: --region-zones: " << regions_text.status().message() << "\n";
    return 2;
  }
  auto regions = ParseRegionLocationsCsv(*regions_text, region_zones_);
  if (!regions.ok()) {
    c.err << "scheduler-lite: --region-zones: " << regions.status().message() << "\n";
    return 2;
  }
  options_.region_locations = {regions->begin(), regions->end()};
  kube::KubeConnection connection;
  if (!kube_.Resolve(connection, c.err)) return 2;
  LineLogger log(c.err, daemon_.log_format(), daemon_.log_level(), c.clock);
  const kube::KubeClient api(connection, c.http);
  hold::CollectorForecasts forecasts(collectors_, client_.auth(), c.http);
  auto registry = std::make_shared<prometheus::Registry>();
  hold::HoldMetrics metrics(*registry);
  std::optional<kube::LeaseElection> election;
  if (!lease_.namespace_name.empty()) election.emplace(lease_, api);
  const kube::EventRecorder events(api, "carbonroute-hold", lease_.identity);
  hold::HoldController controller(options_, api, forecasts, c.clock, metrics, log,
                                  election ? &*election : nullptr, &events);

  net::HttpServerOptions server_options;
  server_options.listen_address = listen_;
  server_options.routes = {
      {"/", exporter::LandingPageHandler("scheduler-lite hold",
                                         {{"/metrics", "the metrics, Prometheus text format"},
                                          {"/healthz", "200 while the API server answers lists"}})},
      {"/metrics", exporter::MetricsPageHandler(registry)},
      {"/healthz", [&controller](const net::HttpServerRequest&) {
         net::HttpServerResponse response;
         if (!controller.healthy()) {
           response.status = 503;
           response.body = "no successful list of Jobs and Pods in the last three resyncs\n";
         } else {
           response.body = "ok\n";
         }
         return response;
       }}};
  net::ApplyWebConfig(web, server_options);
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server =
      net::HttpServer::Start(std::move(server_options));
  if (!server.ok()) {
    log.Error(server.status().message());
    return 1;
  }
  log.Info(absl::StrCat("holding objects selected by ", options_.selector, " from ",
                        connection.Describe(), "; metrics on ",
                        web.tls.has_value() ? "https" : "http", "://",
                        listen_.substr(0, listen_.rfind(':')), ":", (*server)->port(),
                        election ? absl::StrCat("; Lease ", lease_.namespace_name, "/", lease_.name,
                                                " as ", lease_.identity)
                                 : "; acting alone (no --lease-namespace)"));
  controller.Run(c.signals->stop());
  log.Info("stopped");
  return 0;
}

}  // namespace

std::unique_ptr<Subcommand> NewHoldSubcommand() { return std::make_unique<HoldSubcommand>(); }

}  // namespace carbonroute::scheduler_lite
