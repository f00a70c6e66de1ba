#include "scheduler-lite/serve_command.h"

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
    cmd.add_option("--listen", request_.listen, "host:port")->capture_default_str();
    cmd.add_option("--refresh", refresh_, "how often the model is rebuilt from its sources")
        ->capture_default_str();
    cmd.add_option("--max-model-age", max_model_age_,
                   "a model older than this cannot verify a latency limit: such pods fail the "
                   "filter on every node")
        ->capture_default_str();
    cmd.add_option("--carbon-weight", request_.carbon_weight, "w_c")->capture_default_str();
    cmd.add_option("--latency-weight", request_.latency_weight, "w_l")->capture_default_str();
    cmd.add_option("--max-body-bytes", request_.max_body_bytes, "largest request body")
        ->capture_default_str();
    cmd.add_option("--threads", request_.threads,
                   "HTTP server threads (each serves many connections; handlers run on them)")
        ->capture_default_str();
    cmd.add_option("--web.config.file", request_.web_config_file,
                   "TLS and Basic auth of this server, in Prometheus exporters' web "
                   "configuration format (tls_server_config, basic_auth_users)")
        ->check(CLI::ExistingFile);
  }
  void Validate() override {
    request_.refresh = DurationFlag(refresh_, "--refresh");
    request_.max_model_age = DurationFlag(max_model_age_, "--max-model-age");
    ListenFlag(request_.listen);  // before any source is loaded
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
};

}  // namespace

int ServeCommand(const ServeRequest& request, net::HttpClient& http, Clock& clock,
                 absl::Notification& stop, std::ostream& err) {
  net::WebConfig web;  // read first: a mistake in it is a usage error, before any source is asked
  if (!request.web_config_file.empty()) {
    absl::StatusOr<net::WebConfig> loaded = net::LoadWebConfig(request.web_config_file);
    if (!loaded.ok()) {
      err << "scheduler-lite: --web.config.file: " << loaded.status().message() << "\n";
      return 2;
    }
    web = *std::move(loaded);
  }
  ModelStore models;
  bool without_carbon = false;  // said once per episode
  auto refresh = [&] {
    LoadedModel loaded = LoadModel(request.sources, http, clock.Now());
    for (const absl::Status& error : loaded.errors)
      err << "scheduler-lite: warning: " << error.message() << "\n";
    if (loaded.sources_read == 0) return;
    models.Set(loaded.model);
    const bool no_carbon = loaded.model->Readings().empty();
    if (no_carbon && !without_carbon) {
      err << "scheduler-lite: warning: " << extender::kNoCarbonReason << "\n";
    } else if (!no_carbon && without_carbon) {
      err << "scheduler-lite: carbon readings for " << loaded.model->Readings().size()
          << " locations again\n";
    }
    without_carbon = no_carbon;
  };
  refresh();
  TuneAllocatorForLargeRequests();
  auto registry = std::make_shared<prometheus::Registry>();
  ScoringOptions options;
  options.carbon_weight = request.carbon_weight;
  options.latency_weight = request.latency_weight;
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
    err << "scheduler-lite: " << server.status().message() << "\n";
    return 1;
  }
  err << "scheduler-lite: serving the kube-scheduler extender on "
      << (web.tls.has_value() ? "https" : "http") << "://"
      << request.listen.substr(0, request.listen.rfind(':')) << ":" << (*server)->port()
      << " (POST /filter, /prioritize; GET /healthz, /metrics)" << std::endl;
  while (!clock.WaitUntil(clock.Now() + request.refresh, stop)) refresh();
  return 0;
}

std::unique_ptr<Subcommand> NewServeSubcommand() { return std::make_unique<ServeSubcommand>(); }

}  // namespace carbonroute::scheduler_lite
