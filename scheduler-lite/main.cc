// scheduler-lite: carbon- and latency-aware placement from carbonroute collectors' metrics.
// Flags only; the commands live in scheduler-lite/commands.cc.

#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>

#include "absl/strings/str_split.h"
#include "base/clock.h"
#include "base/data_files.h"
#include "base/stop_signals.h"
#include "net/curl_http_client.h"
#include "scheduler-lite/commands.h"

namespace {

using namespace carbonroute::scheduler_lite;  // NOLINT: main only

// The default data file `name` from the data directories (--data-dir, $CARBONROUTE_DATA_DIR,
// ./data, the installed one), or "" (no such source) when there is none.
std::string DataFile(const std::vector<std::string>& dirs, const std::string& name) {
  absl::StatusOr<std::string> path = carbonroute::FindDataFile(name, carbonroute::DataPathsFrom(dirs, "data"));
  return path.ok() ? *path : "";
}

struct SourceFlags {
  std::vector<std::string> metrics;
  std::string prometheus;
  std::string rtt_matrix;
  std::string region_zones;
  std::vector<std::string> data_dirs;
  std::string emissions_type = "average";

  void Add(CLI::App* app) {
    app->add_option("--metrics", metrics, "a collector's /metrics URL (repeatable; default http://127.0.0.1:9464/metrics)");
    app->add_option("--prometheus", prometheus, "a Prometheus server's base URL, e.g. http://127.0.0.1:9090");
    app->add_option("--rtt-matrix", rtt_matrix,
                    "static RTT matrix CSV sending_region,receiving_region,milliseconds (default: data/gcp-inter-region-latency-ms.csv)");
    app->add_option("--region-zones", region_zones, "region → grid zone CSV (default: data/gcp-region-zones.csv)");
    app->add_option("--data-dir", data_dirs, "directory searched first for the default data files (repeatable)");
    app->add_option("--emissions-type", emissions_type, "preferred signal where a location has both")
        ->check(CLI::IsMember({"average", "marginal"}))
        ->capture_default_str();
  }
  ModelSources Sources() const {
    ModelSources sources;
    sources.metrics_urls = metrics;
    sources.prometheus_url = prometheus;
    if (sources.empty()) sources.metrics_urls = {"http://127.0.0.1:9464/metrics"};
    sources.rtt_matrix_csv = rtt_matrix.empty() ? DataFile(data_dirs, "gcp-inter-region-latency-ms.csv") : rtt_matrix;
    sources.region_locations_csv = region_zones.empty() ? DataFile(data_dirs, "gcp-region-zones.csv") : region_zones;
    sources.emissions_type = *carbonroute::ParseEmissionsType(emissions_type);  // checked by IsMember
    return sources;
  }
};

absl::Duration DurationFlag(const std::string& text, const char* flag) {
  absl::Duration d;
  if (!absl::ParseDuration(text, &d) || d <= absl::ZeroDuration()) {
    throw CLI::ValidationError(flag, "expected a positive duration such as 2h or 90m, got \"" + text + "\"");
  }
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"scheduler-lite: carbon- and latency-aware placement from carbonroute collectors' metrics."};
  app.set_version_flag("--version", std::string("scheduler-lite ") + CARBONROUTE_VERSION);
  app.require_subcommand(1);

  SourceFlags sources;
  RankRequest rank_request;
  std::string locations, runtime;
  auto add_rank_flags = [&](CLI::App* cmd) {
    sources.Add(cmd);
    cmd->add_option("--candidates", rank_request.candidates, "auto|locations|nodes|regions")
        ->check(CLI::IsMember({"auto", "locations", "nodes", "regions"}))
        ->capture_default_str();
    cmd->add_option("--locations", locations, "only these candidates, comma-separated (e.g. DE,FR,SE-SE3)");
    cmd->add_option("--from", rank_request.from, "origin node or region of the latency limit");
    cmd->add_option("--max-rtt-ms", rank_request.max_rtt_ms, "largest RTT from --from, milliseconds");
    cmd->add_option("--runtime", runtime, "expected runtime (e.g. 2h): score on the forecast mean over it");
    cmd->add_option("--carbon-weight", rank_request.carbon_weight, "w_c")->capture_default_str();
    cmd->add_option("--latency-weight", rank_request.latency_weight, "w_l")->capture_default_str();
  };
  CLI::App* rank = app.add_subcommand("rank", "rank candidates, cleanest first, with scores and reasons");
  add_rank_flags(rank);
  rank->add_option("--format", rank_request.format, "table or json")->check(CLI::IsMember({"table", "json"}))->capture_default_str();
  std::string explain_name;
  CLI::App* explain = app.add_subcommand("explain", "why one candidate scored as it did");
  explain->add_option("name", explain_name, "node, region or location")->required();
  add_rank_flags(explain);

  WindowRequest window_request;
  std::string duration;
  CLI::App* window = app.add_subcommand("window", "best start time for a job from a location's forecast");
  window->add_option("--collector", window_request.collector, "collector base URL")->capture_default_str();
  window->add_option("--location", window_request.location, "grid location, e.g. DE")->required();
  window->add_option("--duration", duration, "job duration, e.g. 2h")->required();
  window->add_option("--deadline", window_request.deadline, "latest end: RFC 3339 or relative (+12h)")->required();
  window->add_option("--format", window_request.format, "table or json")->check(CLI::IsMember({"table", "json"}));

  KarmadaRequest karmada_request;
  CLI::App* karmada = app.add_subcommand("karmada", "PropagationPolicy clusterNames patch for the N cleanest clusters");
  sources.Add(karmada);
  karmada->add_option("--policy", karmada_request.policy_file, "policy file: propagationPolicy, clusters, desiredClusters")->required();
  karmada->add_option("--runtime", runtime, "expected runtime (e.g. 2h)");
  karmada->add_flag("--apply", karmada_request.apply, "run kubectl patch with the result");

  ServeRequest serve_request;
  std::string refresh = "30s";
  CLI::App* serve = app.add_subcommand("serve", "kube-scheduler extender: POST /filter, /prioritize");
  sources.Add(serve);
  serve->add_option("--listen", serve_request.listen, "host:port")->capture_default_str();
  serve->add_option("--refresh", refresh, "how often the model is rebuilt from its sources")->capture_default_str();
  serve->add_option("--carbon-weight", serve_request.carbon_weight, "w_c")->capture_default_str();
  serve->add_option("--latency-weight", serve_request.latency_weight, "w_l")->capture_default_str();
  serve->add_option("--max-body-bytes", serve_request.max_body_bytes, "largest request body")->capture_default_str();
  serve->add_option("--threads", serve_request.threads, "HTTP worker threads (one per open connection)")->capture_default_str();

  try {
    app.parse(argc, argv);
    if (!runtime.empty()) rank_request.runtime = karmada_request.runtime = DurationFlag(runtime, "--runtime");
    if (window->parsed()) window_request.duration = DurationFlag(duration, "--duration");
    if (serve->parsed()) serve_request.refresh = DurationFlag(refresh, "--refresh");
    if (rank_request.max_rtt_ms && rank_request.from.empty()) {
      throw CLI::ValidationError("--max-rtt-ms", "needs --from NODE (the origin of the latency limit)");
    }
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (!locations.empty()) rank_request.only = absl::StrSplit(locations, ',', absl::SkipEmpty());
  // serve: SIGINT/SIGTERM stop it; watched from here, before any library could start a thread.
  std::optional<carbonroute::StopSignals> signals;
  if (serve->parsed()) signals.emplace();

  absl::StatusOr<std::unique_ptr<carbonroute::net::CurlHttpClient>> http =
      carbonroute::net::CurlHttpClient::Create(std::string("scheduler-lite/") + CARBONROUTE_VERSION);
  if (!http.ok()) {
    std::cerr << "scheduler-lite: " << http.status().message() << "\n";
    return 1;
  }
  carbonroute::Clock& clock = carbonroute::RealClock();
  rank_request.sources = karmada_request.sources = serve_request.sources = sources.Sources();
  if (rank->parsed()) return RankCommand(rank_request, **http, clock, std::cout, std::cerr);
  if (explain->parsed()) return ExplainCommand(rank_request, explain_name, **http, clock, std::cout, std::cerr);
  if (window->parsed()) return WindowCommand(window_request, **http, clock, std::cout, std::cerr);
  if (karmada->parsed()) return KarmadaCommand(karmada_request, **http, clock, std::cout, std::cerr);

  return ServeCommand(serve_request, **http, clock, signals->stop(), std::cerr);
}
