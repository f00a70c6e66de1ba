#include "scheduler-lite/serve_command.h"

#include "absl/strings/str_cat.h"
#include "base/log_line.h"
#include "extender/extender_service.h"
#include "net/http_server.h"
#include "net/web_config.h"
#include "prometheus/registry.h"
#include "scheduler-lite/command_flags.h"

namespace carbonroute::scheduler_lite {

using extender::ExtenderService;
using extender::ModelStore;
using extender::TuneAllocatorForLargeRequests;
using model_sources::LoadedModel;
using model_sources::LoadModel;
using placement::ScoringOptions;

namespace {

class ServeSubcommand final : public Subcommand {
 public:
  const char* name() const override { return "serve"; }
  const char* description() const override {
    return "kube-scheduler extender: POST /filter, /prioritize";
  }
  void AddFlags(CLI::App& cmd) override {
    sources_.AddTo(cmd);
    cmd.add_option("--web.listen-address,--listen", request_.listen,
                   "host:port, or :port for every interface (--listen: the old name, kept for "
                   "one release)")
        ->capture_default_str();
    cmd.add_option("--refresh", refresh_, "how often the model is rebuilt from its sources")
        ->capture_default_str();
    cmd.add_option("--max-model-age", max_model_age_,
                   "a model older than this cannot verify a latency limit: such pods fail the "
                   "filter on every node")
        ->capture_default_str();
    cmd.add_option("--carbon-weight", request_.carbon_weight, "w_c")->capture_default_str();
    cmd.add_option("--latency-weight", request_.latency_weight, "w_l")->capture_default_str();
    cmd.add_option("--carbon-tolerance", request_.carbon_tolerance,
                   "gCO2eq/kWh: within this of the cleanest, the nearer candidate wins")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    cmd.add_option("--max-body-bytes", request_.max_body_bytes, "largest request body")
        ->capture_default_str();
    cmd.add_option("--threads", request_.threads,
                   "HTTP server threads (each serves many connections; handlers run on them)")
        ->capture_default_str();
    daemon_.AddTo(cmd);
  }
  void Validate() override {
    request_.refresh = DurationFlag(refresh_, "--refresh");
    request_.max_model_age = DurationFlag(max_model_age_, "--max-model-age");
    ListenFlag(request_.listen, "--web.listen-address");  // before any source is loaded
    request_.log_level = daemon_.log_level();
    request_.log_format = daemon_.log_format();
    request_.web_config_file = daemon_.web_config_file();
  }
  bool WatchesStopSignals() const override { return true; }
  int Run(ProgramContext& c) override {
    if (!sources_.Resolve(request_.sources, c.err)) return 1;
    return ServeCommand(request_, c.http, c.clock, c.signals->stop(), c.err);
  }

 private:
  SourceFlags sources_;
  ServeRequest request_;
  std::string refresh_ = "30s";
  std::string max_model_age_ = "10m";
  DaemonFlags daemon_;
};

}  // namespace

int ServeCommand(const ServeRequest& request, net::HttpClient& http, Clock& clock,
                 absl::Notification& stop, std::ostream& err) {
  net::WebConfig web;  // read first: a mistake in it is a usage error, before any source is asked
  if (!LoadWebConfigFlag(request.web_config_file, web, err)) return 2;
  // A daemon from here on: every line with a time and a level (--log.format, --log.level).
  LineLogger log(err, request.log_format, request.log_level, clock);
  ModelStore models;
  bool without_carbon = false;  // said once per episode
  auto refresh = [&] {
    LoadedModel loaded = LoadModel(request.sources, http, clock.Now());
    for (const absl::Status& error : loaded.errors) log.Warn(error.message());
    if (loaded.sources_read == 0) return;
    models.Set(loaded.model);
    const bool no_carbon = loaded.model->Readings().empty();
    if (no_carbon && !without_carbon) {
      log.Warn(extender::kNoCarbonReason);
    } else if (!no_carbon && without_carbon) {
      log.Info(absl::StrCat("carbon readings for ", loaded.model->Readings().size(),
                            " locations again"));
    }
    without_carbon = no_carbon;
  };
  refresh();
  TuneAllocatorForLargeRequests();
  auto registry = std::make_shared<prometheus::Registry>();
  ScoringOptions options;
  options.carbon_weight = request.carbon_weight;
  options.latency_weight = request.latency_weight;
  options.carbon_tolerance = request.carbon_tolerance;
  ExtenderService service(models, options, clock, *registry, request.max_model_age);
  net::HttpServerOptions server_options;
  server_options.listen_address = request.listen;
  server_options.routes = service.Routes(registry);
  server_options.max_body_bytes = request.max_body_bytes;
  server_options.threads = request.threads;
  net::ApplyWebConfig(web, server_options);
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server =
      net::HttpServer::Start(std::move(server_options));
  if (!server.ok()) {
    log.Error(server.status().message());
    return 1;
  }
  log.Info(absl::StrCat("serving the kube-scheduler extender on ",
                        web.tls.has_value() ? "https" : "http", "://",
                        request.listen.substr(0, request.listen.rfind(':')), ":", (*server)->port(),
                        " (POST /filter, /prioritize; GET /, /healthz, /metrics)"));
  while (!clock.WaitUntil(clock.Now() + request.refresh, stop)) refresh();
  log.Info("stopped");
  return 0;
}

std::unique_ptr<Subcommand> NewServeSubcommand() { return std::make_unique<ServeSubcommand>(); }

}  // namespace carbonroute::scheduler_lite
