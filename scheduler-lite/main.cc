// scheduler-lite: carbon- and latency-aware placement from carbonroute collectors' metrics.
// Flags only: each subcommand is a row of the table below, its work a function
// of scheduler-lite/commands.h.

#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "base/clock.h"
#include "base/data_files.h"
#include "base/stop_signals.h"
#include "base/usage.h"
#include "net/curl_http_client.h"
#include "scheduler-lite/commands.h"

namespace {

using namespace carbonroute::scheduler_lite;  // NOLINT: main only

// The default data file `name` from the data directories (--data-dir,
// $CARBONROUTE_DATA_DIR, ./data, next to the binary, the installed one), the
// same search as the collector's; kNotFound naming every path tried.
absl::StatusOr<std::string> DataFile(const std::vector<std::string>& dirs,
                                     const std::string& name) {
  return carbonroute::FindDataFile(name, carbonroute::DataPathsFrom(dirs, "data"));
}

absl::Duration DurationFlag(const std::string& text, const char* flag) {
  absl::Duration d;
  if (!absl::ParseDuration(text, &d) || d <= absl::ZeroDuration()) {
    throw CLI::ValidationError(
        flag, "expected a positive duration such as 2h or 90m, got \"" + text + "\"");
  }
  return d;
}

// "host:port" with a port number 0–65535 (0: any free port); throws otherwise.
void ListenFlag(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  int port = -1;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(absl::string_view(text).substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    throw CLI::ValidationError(
        "--listen",
        "expected host:port such as 127.0.0.1:8888 or 0.0.0.0:8888, got \"" + text + "\"");
  }
}

// Every flag of every subcommand, parsed into one place.
struct Flags {
  // Sources (rank, explain, karmada, serve).
  std::vector<std::string> metrics;
  std::string prometheus;
  std::string rtt_matrix;
  std::string region_zones;
  std::vector<std::string> data_dirs;
  std::string emissions_type = "average";
  // rank, explain.
  RankRequest rank;
  std::string locations;
  std::string explain_name;
  // window.
  WindowRequest window;
  std::string duration;
  // karmada.
  KarmadaRequest karmada;
  // serve.
  ServeRequest serve;
  std::string refresh = "30s";
  // rank, explain, karmada.
  std::string runtime;

  absl::StatusOr<ModelSources> Sources() const {
    ModelSources sources;
    sources.metrics_urls = metrics;
    sources.prometheus_url = prometheus;
    if (sources.empty()) {
      sources.metrics_urls = {"http://127.0.0.1:9464/metrics"};
      sources.default_source = true;
    }
    sources.rtt_matrix_csv = rtt_matrix;
    if (rtt_matrix.empty()) {
      absl::StatusOr<std::string> path = DataFile(data_dirs, "gcp-inter-region-latency-ms.csv");
      if (!path.ok()) return path.status();
      sources.rtt_matrix_csv = *path;
    }
    sources.region_locations_csv = region_zones;
    if (region_zones.empty()) {
      absl::StatusOr<std::string> path = DataFile(data_dirs, "gcp-region-zones.csv");
      if (!path.ok()) return path.status();
      sources.region_locations_csv = *path;
    }
    // Checked by IsMember.
    sources.emissions_type = *carbonroute::ParseEmissionsType(emissions_type);
    return sources;
  }
};

void AddSourceFlags(CLI::App* app, Flags& f) {
  app->add_option("--metrics", f.metrics,
                  "a collector's /metrics URL (repeatable; default http://127.0.0.1:9464/metrics)");
  app->add_option("--prometheus", f.prometheus,
                  "a Prometheus server's base URL, e.g. http://127.0.0.1:9090");
  app->add_option("--rtt-matrix", f.rtt_matrix,
                  "static RTT matrix CSV sending_region,receiving_region,milliseconds (default: "
                  "data/gcp-inter-region-latency-ms.csv)");
  app->add_option("--region-zones", f.region_zones,
                  "region → grid zone CSV (default: data/gcp-region-zones.csv)");
  app->add_option("--data-dir", f.data_dirs,
                  "directory searched first for the default data files (repeatable)");
  app->add_option("--emissions-type", f.emissions_type,
                  "preferred signal where a location has both")
      ->check(CLI::IsMember({"average", "marginal"}))
      ->capture_default_str();
}

void AddRankFlags(CLI::App* cmd, Flags& f) {
  AddSourceFlags(cmd, f);
  cmd->add_option("--candidates", f.rank.candidates, "auto|locations|nodes|regions")
      ->check(CLI::IsMember({"auto", "locations", "nodes", "regions"}))
      ->capture_default_str();
  cmd->add_option("--locations", f.locations,
                  "only these candidates, comma-separated (e.g. DE,FR,SE-SE3)");
  cmd->add_option("--from", f.rank.from, "origin node or region of the latency limit");
  cmd->add_option("--max-rtt-ms", f.rank.max_rtt_ms, "largest RTT from --from, milliseconds");
  cmd->add_option("--runtime", f.runtime,
                  "expected runtime (e.g. 2h): score on the forecast mean over it");
  cmd->add_option("--carbon-weight", f.rank.carbon_weight, "w_c")->capture_default_str();
  cmd->add_option("--latency-weight", f.rank.latency_weight, "w_l")->capture_default_str();
}

// What a subcommand's run function is handed.
struct Context {
  Flags& flags;
  carbonroute::net::HttpClient& http;
  carbonroute::Clock& clock;
  carbonroute::StopSignals* signals;  // serve only
};

struct Subcommand {
  const char* name;
  const char* description;
  std::function<void(CLI::App*, Flags&)> add_flags;
  // Checks and converts flags after parsing; throws CLI::ValidationError.
  std::function<void(Flags&)> validate;
  std::function<int(Context&)> run;
};

const std::vector<Subcommand>& Subcommands() {
  static const std::vector<Subcommand> table = {
      {"rank", "rank candidates, cleanest first, with scores and reasons",
       [](CLI::App* cmd, Flags& f) {
         AddRankFlags(cmd, f);
         cmd->add_option("--format", f.rank.format, "table or json")
             ->check(CLI::IsMember({"table", "json"}))
             ->capture_default_str();
       },
       nullptr,
       [](Context& c) { return RankCommand(c.flags.rank, c.http, c.clock, std::cout, std::cerr); }},
      {"explain", "why one candidate scored as it did",
       [](CLI::App* cmd, Flags& f) {
         cmd->add_option("name", f.explain_name, "node, region or location")->required();
         AddRankFlags(cmd, f);
       },
       nullptr,
       [](Context& c) {
         return ExplainCommand(c.flags.rank, c.flags.explain_name, c.http, c.clock, std::cout,
                               std::cerr);
       }},
      {"window", "best start time for a job from a location's forecast",
       [](CLI::App* cmd, Flags& f) {
         cmd->add_option("--collector", f.window.collector, "collector base URL")
             ->capture_default_str();
         cmd->add_option("--location", f.window.location, "grid location, e.g. DE")->required();
         cmd->add_option("--duration", f.duration, "job duration, e.g. 2h")->required();
         cmd->add_option("--deadline", f.window.deadline, "latest end: RFC 3339 or relative (+12h)")
             ->required();
         cmd->add_option("--format", f.window.format, "table or json")
             ->check(CLI::IsMember({"table", "json"}));
       },
       [](Flags& f) { f.window.duration = DurationFlag(f.duration, "--duration"); },
       [](Context& c) {
         return WindowCommand(c.flags.window, c.http, c.clock, std::cout, std::cerr);
       }},
      {"karmada", "PropagationPolicy clusterNames patch for the N cleanest clusters",
       [](CLI::App* cmd, Flags& f) {
         AddSourceFlags(cmd, f);
         cmd->add_option("--policy", f.karmada.policy_file,
                         "policy file: propagationPolicy, clusters, desiredClusters")
             ->required();
         cmd->add_option("--runtime", f.runtime, "expected runtime (e.g. 2h)");
         cmd->add_flag("--apply", f.karmada.apply, "run kubectl patch with the result");
       },
       nullptr,
       [](Context& c) {
         return KarmadaCommand(c.flags.karmada, c.http, c.clock, std::cout, std::cerr);
       }},
      {"serve", "kube-scheduler extender: POST /filter, /prioritize",
       [](CLI::App* cmd, Flags& f) {
         AddSourceFlags(cmd, f);
         cmd->add_option("--listen", f.serve.listen, "host:port")->capture_default_str();
         cmd->add_option("--refresh", f.refresh, "how often the model is rebuilt from its sources")
             ->capture_default_str();
         cmd->add_option("--carbon-weight", f.serve.carbon_weight, "w_c")->capture_default_str();
         cmd->add_option("--latency-weight", f.serve.latency_weight, "w_l")->capture_default_str();
         cmd->add_option("--max-body-bytes", f.serve.max_body_bytes, "largest request body")
             ->capture_default_str();
         cmd->add_option("--threads", f.serve.threads,
                         "HTTP worker threads (one per open connection)")
             ->capture_default_str();
       },
       [](Flags& f) {
         f.serve.refresh = DurationFlag(f.refresh, "--refresh");
         ListenFlag(f.serve.listen);  // before any source is loaded
       },
       [](Context& c) {
         return ServeCommand(c.flags.serve, c.http, c.clock, c.signals->stop(), std::cerr);
       }},
  };
  return table;
}

}  // namespace

// An exception escaping main (a library failing at start-up) ends the process
// with its message, which is what should happen then.
int main(int argc, char** argv) {  // NOLINT(bugprone-exception-escape)
  CLI::App app{
      "scheduler-lite: carbon- and latency-aware placement from carbonroute collectors' "
      "metrics."};
  app.set_version_flag("--version", std::string("scheduler-lite ") + CARBONROUTE_VERSION);
  app.require_subcommand(1);

  Flags flags;
  std::vector<std::pair<CLI::App*, const Subcommand*>> parsers;
  for (const Subcommand& subcommand : Subcommands()) {
    CLI::App* cmd = app.add_subcommand(subcommand.name, subcommand.description);
    subcommand.add_flags(cmd, flags);
    parsers.emplace_back(cmd, &subcommand);
  }

  const Subcommand* chosen = nullptr;
  try {
    app.parse(argc, argv);
    for (const auto& [cmd, subcommand] : parsers) {
      if (cmd->parsed()) chosen = subcommand;
    }
    if (!flags.runtime.empty()) {
      flags.rank.runtime = flags.karmada.runtime = DurationFlag(flags.runtime, "--runtime");
    }
    if (flags.rank.max_rtt_ms && flags.rank.from.empty()) {
      throw CLI::ValidationError("--max-rtt-ms",
                                 "needs --from NODE (the origin of the latency limit)");
    }
    if (chosen->validate) chosen->validate(flags);
  } catch (const CLI::ParseError& e) {
    // A mistyped subcommand reaches CLI11 as an unexpected argument: name it
    // and the closest subcommand instead.
    if (chosen == nullptr && argc > 1 && argv[1][0] != '-' && e.get_exit_code() != 0) {
      std::vector<std::string> names;
      for (const Subcommand& subcommand : Subcommands()) names.emplace_back(subcommand.name);
      if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
        const std::string closest = carbonroute::ClosestMatch(argv[1], names);
        std::cerr << "scheduler-lite: unknown subcommand \"" << argv[1] << "\""
                  << (closest.empty() ? "" : "; did you mean \"" + closest + "\"?")
                  << " (subcommands: rank, explain, window, karmada, serve; see --help)\n";
        return carbonroute::kUsageExitCode;
      }
    }
    return carbonroute::UsageExitCode(app.exit(e));
  }
  if (!flags.locations.empty()) {
    flags.rank.only = absl::StrSplit(flags.locations, ',', absl::SkipEmpty());
  }
  // serve: SIGINT/SIGTERM stop it; watched from here, before any library could start a thread.
  std::optional<carbonroute::StopSignals> signals;
  if (std::string(chosen->name) == "serve") signals.emplace();

  absl::StatusOr<std::unique_ptr<carbonroute::net::CurlHttpClient>> http =
      carbonroute::net::CurlHttpClient::Create(std::string("scheduler-lite/") +
                                               CARBONROUTE_VERSION);
  if (!http.ok()) {
    std::cerr << "scheduler-lite: " << http.status().message() << "\n";
    return 1;
  }
  if (std::string(chosen->name) != "window") {
    absl::StatusOr<ModelSources> sources = flags.Sources();
    if (!sources.ok()) {
      std::cerr << "scheduler-lite: " << sources.status().message()
                << " (give --rtt-matrix/--region-zones or --data-dir)\n";
      return 1;
    }
    flags.rank.sources = flags.karmada.sources = flags.serve.sources = *std::move(sources);
  }
  Context context{flags, **http, carbonroute::RealClock(), signals ? &*signals : nullptr};
  return chosen->run(context);
}
