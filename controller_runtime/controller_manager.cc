#include "controller_runtime/controller_manager.h"

#include <spdlog/spdlog.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "exporter/metrics_page.h"
#include "net/http_server.h"

namespace carbonroute::controller_runtime {
namespace {

// A probe's answer: 200 "ok" while `why_not` says nothing (or there is none), else 503 and why.
net::HttpHandler ProbeHandler(std::function<std::string()> why_not) {
  return [why_not = std::move(why_not)](const net::HttpServerRequest&) {
    const std::string why = why_not ? why_not() : "";
    net::HttpServerResponse response;
    response.status = why.empty() ? 200 : 503;
    response.body = why.empty() ? "ok\n" : why + "\n";
    return response;
  };
}

// The web server: `/` (a landing page), `/metrics` (the registry), `/healthz` and `/livez`.
struct ControllerServer {
  std::string listen_address;
  const net::WebConfig* web = nullptr;  // borrowed
  std::string title;
  std::shared_ptr<prometheus::Registry> registry;
  std::function<std::string()> unhealthy;  // /healthz: "" or why not
  std::function<std::string()> stuck;      // /livez: "" or why the loop is stuck
};

absl::StatusOr<std::unique_ptr<net::HttpServer>> StartServer(const ControllerServer& server) {
  net::HttpServerOptions options;
  options.listen_address = server.listen_address;
  options.routes = {{"/", exporter::LandingPageHandler(
                              server.title, {{"/metrics", "the metrics, Prometheus text format"},
                                             {"/healthz", "200 while the API server answers lists"},
                                             {"/livez", "200 while the loop turns (liveness)"}})},
                    {"/metrics", exporter::MetricsPageHandler(server.registry)},
                    {"/healthz", ProbeHandler(server.unhealthy)},
                    {"/livez", ProbeHandler(server.stuck)}};
  if (server.web != nullptr) net::ApplyWebConfig(*server.web, options);
  return net::HttpServer::Start(std::move(options));
}

std::string ServerUrl(const net::WebConfig& web, const std::string& listen_address,
                      const net::HttpServer& server) {
  return absl::StrCat(web.tls.has_value() ? "https" : "http", "://",
                      listen_address.substr(0, listen_address.rfind(':')), ":", server.port());
}

}  // namespace

ControllerManager::ControllerManager(const kube::KubeConnection& connection, net::HttpClient& http,
                                     ManagerOptions options)
    : options_(std::move(options)),
      connection_(connection),
      api_(connection_, http),
      registry_(std::make_shared<prometheus::Registry>()),
      events_(api_, options_.component, options_.lease.identity) {
  if (!options_.lease.namespace_name.empty()) election_.emplace(options_.lease, api_);
}

int ControllerManager::Run(const ManagedController& controller, absl::Notification& stop) const {
  absl::StatusOr<std::unique_ptr<net::HttpServer>> server = StartServer(
      {.listen_address = options_.listen_address,
       .web = &options_.web,
       .title = options_.title,
       .registry = registry_,
       .unhealthy = [&controller]() -> std::string {
         return controller.healthy() ? "" : controller.unhealthy;
       },
       .stuck = [&controller]() -> std::string {
         return controller.turning() ? "" : "stuck: no pass of the loop ended in three resyncs";
       }});
  if (!server.ok()) {
    spdlog::error(std::string(server.status().message()));
    return 1;
  }
  spdlog::info(absl::StrCat(controller.started, "; metrics on ",
                            ServerUrl(options_.web, options_.listen_address, **server),
                            DescribeLease(options_.lease)));
  controller.run(stop);
  spdlog::info("stopped");
  return 0;
}

std::string DescribeLease(const kube::LeaseOptions& lease) {
  return lease.namespace_name.empty() ? "; acting alone (no --lease-namespace)"
                                      : absl::StrCat("; Lease ", lease.namespace_name, "/",
                                                     lease.name, " as ", lease.identity);
}

}  // namespace carbonroute::controller_runtime
