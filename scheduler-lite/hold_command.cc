#include "scheduler-lite/hold_command.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/data_files.h"
#include "base/log_line.h"
#include "cli/daemon_flags.h"
#include "cli/logging.h"
#include "contract/region_locations.h"
#include "exporter/metrics_page.h"
#include "hold/forecast_source.h"
#include "hold/hold_controller.h"
#include "hold/hold_metrics.h"
#include "kube/event_recorder.h"
#include "kube/kube_client.h"
#include "kube/lease_election.h"
#include "ledger/ledger.h"
#include "model_sources/measured_energy.h"
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
    kube_.AddWatchTimeoutTo(cmd);
    cmd.add_option("--selector", options_.selector, "label selector of the objects to hold")
        ->capture_default_str();
    cmd.add_option("--resync", resync_,
                   "how often Jobs and Pods are listed again (between lists they are watched)")
        ->capture_default_str();
    cmd.add_option("--forecast-refresh", forecast_refresh_,
                   "how often a location's forecast is read again")
        ->capture_default_str();
    cmd.add_flag("--dry-run", options_.dry_run,
                 "plan as usual but write nothing but Events and the Lease: each opted-in object "
                 "that is not held gets a CleanWindowWouldHold Event saying when and where it "
                 "would have started; a held one is left held; the savings ledger books what "
                 "the plan would have saved against the hours it really ran (mode=\"shadow\")");
    power_.AddTo(cmd);
    cmd.add_option("--prometheus", prometheus_,
                   "a Prometheus server's base URL that evaluates the emissions rules "
                   "(deploy/prometheus/carbonroute-emissions.yaml): the savings ledger prices "
                   "each run at what Kepler or DCGM measured of its Pods (else the power model)");
    lease_.AddTo(cmd);
    cmd.add_option("--region-zones", region_zones_,
                   std::string("region → grid location CSV, for node selectors naming a region "
                               "(default: data/") +
                       kRegionZonesFile + ")")
        ->check(CLI::ExistingFile);
    cmd.add_option("--data-dir", data_dirs_, "directory searched first for the default data files");
    daemon_.AddTo(cmd);
  }
  void Validate() override {
    for (const std::string& url : collectors_) UrlFlag(url, "--collector");
    if (!prometheus_.empty()) UrlFlag(prometheus_, "--prometheus");
    options_.resync = DurationFlag(resync_, "--resync");
    options_.forecast_refresh = DurationFlag(forecast_refresh_, "--forecast-refresh");
    options_.watch = true;
    options_.watch_timeout = kube_.watch_timeout();
    options_.power_model = power_.model();
    if (options_.selector.empty()) {
      throw CLI::ValidationError("--selector", "must not be empty (it would hold every Job)");
    }
    daemon_.Check();
    lease_.Fill();
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
  LeaseFlags lease_{"carbonroute-hold"};
  PowerModelFlags power_;
  std::string prometheus_;
  std::string region_zones_;
  std::vector<std::string> data_dirs_;
  cli::DaemonFlags daemon_{{.listen_address = "127.0.0.1:9466"}};
};

int HoldSubcommand::Run(ProgramContext& c) {
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
  const std::unique_ptr<controller_runtime::ControllerManager> manager = StartControllerManager(
      kube_, daemon_, lease_, "carbonroute-hold", "scheduler-lite hold", c.http, c.err);
  if (manager == nullptr) return kube_.ResolveExitCode();
  hold::CollectorForecasts forecasts(collectors_, client_.auth(), c.http);
  if (!prometheus_.empty()) {
    options_.run_meter = model_sources::PrometheusPodsMeter(c.http, prometheus_, client_.auth());
  }

  hold::HoldMetrics metrics(manager->registry());
  ledger::Ledger ledger(manager->registry());
  hold::HoldController controller(options_, manager->wiring(c.clock), forecasts, metrics, &ledger);
  return manager->Run(
      controller_runtime::Managed(
          controller, "no successful list of Jobs and Pods in the last three resyncs",
          absl::StrCat(options_.dry_run ? "dry run (writes nothing but Events): " : "",
                       "holding objects selected by ", options_.selector, " from ",
                       manager->connection().Describe())),
      c.signals->stop());
}

}  // namespace

std::unique_ptr<Subcommand> NewHoldSubcommand() { return std::make_unique<HoldSubcommand>(); }

}  // namespace carbonroute::scheduler_lite
