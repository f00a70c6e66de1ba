// scheduler-lite: carbon- and latency-aware placement from carbonroute collectors' metrics.
// Flags only: each subcommand is a row of the table below, its work a function
// of scheduler-lite/commands.h.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <functional>
#include <iostream>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "base/clock.h"
#include "base/data_files.h"
#include "base/open_file_limit.h"
#include "base/stop_signals.h"
#include "base/usage.h"
#include "net/curl_http_client.h"
#include "scheduler-lite/commands.h"
#include "scheduler-lite/simulate_command.h"
#include "scheduler-lite/simulation_output.h"

namespace {

using namespace carbonroute::scheduler_lite;  // NOLINT: main only
using carbonroute::model_sources::ModelSources;
using carbonroute::model_sources::SourceAuth;
using namespace carbonroute::simulator;  // NOLINT: main only

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
  SourceAuth auth;
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
  // simulate.
  SimulateRequest simulate;
  std::string trace;
  std::string simulate_limits = "5,50,100,150,200,250,300";
  std::string simulate_idle = "0,50,99";
  std::string simulate_policies = "local,static,carbonroute,oracle";
  std::string simulate_origins;
  std::string simulate_runtime = "1h";
  std::string forecast = "perfect";

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
    sources.auth = auth;
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
  // The sources' TLS and credentials, as a Prometheus scrape_config has them.
  app->add_option("--ca-file", f.auth.ca_file,
                  "PEM CA bundle that https sources are verified against")
      ->check(CLI::ExistingFile);
  CLI::Option* cert = app->add_option("--client-cert", f.auth.client_cert_file,
                                      "PEM client certificate presented to the sources")
                          ->check(CLI::ExistingFile);
  CLI::Option* key =
      app->add_option("--client-key", f.auth.client_key_file, "PEM key of --client-cert")
          ->check(CLI::ExistingFile);
  cert->needs(key);
  key->needs(cert);
  CLI::Option* user = app->add_option("--basic-auth-user", f.auth.basic_auth_user,
                                      "HTTP Basic auth user for the sources");
  CLI::Option* password =
      app->add_option("--basic-auth-password-file", f.auth.basic_auth_password_file,
                      "file holding the Basic auth password (read before each request)")
          ->check(CLI::ExistingFile);
  user->needs(password);
  password->needs(user);
  app->add_option("--bearer-token-file", f.auth.bearer_token_file,
                  "file holding a bearer token (read before each request)")
      ->check(CLI::ExistingFile)
      ->excludes(user);
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

// A comma-separated list of numbers; throws naming the flag and the bad item.
std::vector<double> NumberListFlag(const std::string& text, const char* flag, double min,
                                   double max_exclusive, const char* expected) {
  std::vector<double> values;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    double value = 0;
    if (!absl::SimpleAtod(item, &value) || !std::isfinite(value) || value < min ||
        value >= max_exclusive) {
      throw CLI::ValidationError(flag, std::string("expected ") + expected + ", got \"" +
                                           std::string(item) + "\" in \"" + text + "\"");
    }
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  return values;
}

constexpr char kSimulateModel[] = R"(Model:
  A site is a grid zone that hosts at least one region of --region-zones; regions
  sharing a zone are one site. The RTT between two sites is the --rtt-matrix value
  between their regions (the smallest, if several); a site to itself is 5 ms.
  Every site has a capacity of 100 units and its own constant load of
  100 * (1 - idle/100) units (rounded). Work may move only to sites within
  --max-rtt-ms of its origin site, never beyond a site's capacity, and is re-placed
  every --runtime. The figure of merit is the load-weighted mean carbon intensity
  of the origins' work over the trace (gCO2eq/kWh); savings are relative to local.
Policies:
  local        nothing moves.
  static       one plan from each site's mean over the whole trace: origins in
               ascending order of their mean move as much as fits to the cleanest
               sites within the limit (itself included), in order, and keep the rest.
  carbonroute  each period, each origin (dirtiest first) is placed by the extender's
               own scoring with the limit as a hard filter, seeing the current
               reading and the forecast mean (--forecast perfect: the trace itself;
               persistence: the same hours of the previous day) and weighing carbon
               against latency by --carbon-weight/--latency-weight; full sites are
               not candidates.
  oracle       each period, the minimum-carbon assignment for the true means
               (min-cost flow, LEMON NetworkSimplex): the lower bound.
Sites whose zone has no column in --trace are skipped with a warning.)";

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
                         "HTTP server threads (each serves many connections; handlers run on them)")
             ->capture_default_str();
         cmd->add_option("--web.config.file", f.serve.web_config_file,
                         "TLS and Basic auth of this server, in Prometheus exporters' web "
                         "configuration format (tls_server_config, basic_auth_users)")
             ->check(CLI::ExistingFile);
       },
       [](Flags& f) {
         f.serve.refresh = DurationFlag(f.refresh, "--refresh");
         ListenFlag(f.serve.listen);  // before any source is loaded
       },
       [](Context& c) {
         return ServeCommand(c.flags.serve, c.http, c.clock, c.signals->stop(), std::cerr);
       }},
      {"simulate", "what each policy would have saved over a year of real grid data",
       [](CLI::App* cmd, Flags& f) {
         cmd->add_option("--trace", f.simulate.trace_csv,
                         "hourly carbon-intensity CSV datetime,<zone>... (default: "
                         "data/carbon-intensity-2022-hourly.csv)");
         cmd->add_option("--region-zones", f.simulate.region_zones_csv,
                         "region → grid zone CSV (default: data/gcp-region-zones.csv)");
         cmd->add_option("--rtt-matrix", f.simulate.rtt_matrix_csv,
                         "RTT matrix CSV sending_region,receiving_region,milliseconds (default: "
                         "data/gcp-inter-region-latency-ms.csv)");
         cmd->add_option("--data-dir", f.data_dirs,
                         "directory searched first for the default data files (repeatable)");
         cmd->add_option("--origins", f.simulate_origins,
                         "where work originates: regions or zones, comma-separated (default: "
                         "every site)");
         cmd->add_option("--max-rtt-ms", f.simulate_limits, "latency limits, ms, comma-separated")
             ->capture_default_str();
         cmd->add_option("--idle-capacity", f.simulate_idle,
                         "idle capacity levels, percent in [0, 100), comma-separated")
             ->capture_default_str();
         cmd->add_option("--policies", f.simulate_policies,
                         "local,static,carbonroute,oracle (any of them, comma-separated)")
             ->capture_default_str();
         cmd->add_option("--runtime", f.simulate_runtime,
                         "work is re-placed every runtime (whole hours, e.g. 1h, 4h)")
             ->capture_default_str();
         cmd->add_option("--forecast", f.forecast,
                         "what carbonroute knows of the coming runtime: perfect|persistence")
             ->check(CLI::IsMember({"perfect", "persistence"}))
             ->capture_default_str();
         cmd->add_option("--format", f.simulate.format, "table, csv or json")
             ->check(CLI::IsMember({"table", "csv", "json"}))
             ->capture_default_str();
         cmd->add_option("--plot", f.simulate.plot,
                         "also draw mean intensity against the limit into FILE.svg or FILE.png "
                         "(needs gnuplot)");
         cmd->add_option("--carbon-weight", f.simulate.options.carbon_weight,
                         "the carbonroute policy's w_c (as serve's)")
             ->check(CLI::NonNegativeNumber)
             ->capture_default_str();
         cmd->add_option("--latency-weight", f.simulate.options.latency_weight,
                         "the carbonroute policy's w_l (as serve's)")
             ->check(CLI::NonNegativeNumber)
             ->capture_default_str();
         cmd->add_option("--threads", f.simulate.options.threads,
                         "worker threads (0: one per core)")
             ->check(CLI::NonNegativeNumber)
             ->capture_default_str();
         cmd->footer(kSimulateModel);
       },
       [](Flags& f) {
         SimulationOptions& o = f.simulate.options;
         o.max_rtt_ms = NumberListFlag(f.simulate_limits, "--max-rtt-ms", 0, INFINITY,
                                       "latency limits in ms ≥ 0 such as 50,100,150");
         o.idle_percent.clear();
         for (double idle : NumberListFlag(f.simulate_idle, "--idle-capacity", 0, 100,
                                           "whole percentages in [0, 100) such as 0,50,99")) {
           if (idle != std::floor(idle)) {
             throw CLI::ValidationError("--idle-capacity",
                                        "expected whole percentages, got " + f.simulate_idle);
           }
           o.idle_percent.push_back(static_cast<int>(idle));
         }
         o.policies.clear();
         for (absl::string_view name : absl::StrSplit(f.simulate_policies, ',')) {
           std::optional<SimulatedPolicy> policy = ParsePolicy(name);
           if (!policy) {
             throw CLI::ValidationError("--policies",
                                        "unknown policy \"" + std::string(name) +
                                            "\" (policies: local, static, carbonroute, oracle)");
           }
           if (std::find(o.policies.begin(), o.policies.end(), *policy) == o.policies.end()) {
             o.policies.push_back(*policy);
           }
         }
         const absl::Duration runtime = DurationFlag(f.simulate_runtime, "--runtime");
         if (runtime % absl::Hours(1) != absl::ZeroDuration()) {
           throw CLI::ValidationError("--runtime",
                                      "expected whole hours (the trace is hourly), "
                                      "got \"" +
                                          f.simulate_runtime + "\"");
         }
         o.runtime_hours = static_cast<int>(absl::ToInt64Hours(runtime));
         o.forecast = f.forecast == "perfect" ? ForecastMode::kPerfect : ForecastMode::kPersistence;
         if (!f.simulate.plot.empty() && !IsPlotPath(f.simulate.plot)) {
           throw CLI::ValidationError("--plot",
                                      "\"" + f.simulate.plot + "\" must end in .svg or .png");
         }
         f.simulate.origins = absl::StrSplit(f.simulate_origins, ',', absl::SkipEmpty());
         f.simulate.progress_bar = isatty(STDERR_FILENO) == 1;
       },
       [](Context& c) { return SimulateCommand(c.flags.simulate, std::cout, std::cerr); }},
  };
  return table;
}

}  // namespace

// An exception escaping main (a library failing at start-up) ends the process
// with its message, which is what should happen then.
int main(int argc, char** argv) {     // NOLINT(bugprone-exception-escape)
  carbonroute::RaiseOpenFileLimit();  // `serve` takes up to 2048 connections
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
        std::cerr
            << "scheduler-lite: unknown subcommand \"" << argv[1] << "\""
            << (closest.empty() ? "" : "; did you mean \"" + closest + "\"?")
            << " (subcommands: rank, explain, window, karmada, serve, simulate; see --help)\n";
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
  if (std::string(chosen->name) != "window" && std::string(chosen->name) != "simulate") {
    absl::StatusOr<ModelSources> sources = flags.Sources();
    if (!sources.ok()) {
      std::cerr << "scheduler-lite: " << sources.status().message()
                << " (give --rtt-matrix/--region-zones or --data-dir)\n";
      return 1;
    }
    flags.rank.sources = flags.karmada.sources = flags.serve.sources = *std::move(sources);
  }
  if (std::string(chosen->name) == "simulate") {
    const std::pair<std::string*, const char*> files[] = {
        {&flags.simulate.trace_csv, "carbon-intensity-2022-hourly.csv"},
        {&flags.simulate.region_zones_csv, "gcp-region-zones.csv"},
        {&flags.simulate.rtt_matrix_csv, "gcp-inter-region-latency-ms.csv"}};
    for (const auto& [path, name] : files) {
      if (!path->empty()) continue;
      absl::StatusOr<std::string> found = DataFile(flags.data_dirs, name);
      if (!found.ok()) {
        std::cerr << "scheduler-lite: " << found.status().message()
                  << " (give --trace/--region-zones/--rtt-matrix or --data-dir)\n";
        return carbonroute::kUsageExitCode;
      }
      *path = *found;
    }
  }
  Context context{flags, **http, carbonroute::RealClock(), signals ? &*signals : nullptr};
  return chosen->run(context);
}
