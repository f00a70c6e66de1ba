#include "keda/keda_publishing.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "net/curl_http_client.h"

namespace carbonroute::keda {

absl::StatusOr<kube::KubeConnection> KedaPublishing::Connection(
    const PublishConfig& config, const kube::KubeEnvironment& environment) {
  absl::StatusOr<kube::KubeConnection> connection = kube::ResolveKubeConnection(
      {.api_url = config.api_url,
       .token_file = config.token_file,
       .ca_file = config.ca_file,
       .kubeconfig = config.kubeconfig,
       .context = config.context,
       .how_to_configure = "set publish.kubeconfig (a kubeconfig file) or publish.api_url",
       .api_url_name = "publish.api_url",
       .kubeconfig_name = "publish.kubeconfig"},
      environment);
  if (!connection.ok()) {
    return absl::Status(connection.status().code(),
                        absl::StrCat("publish: ", connection.status().message()));
  }
  return connection;
}

absl::StatusOr<std::unique_ptr<KedaPublishing>> KedaPublishing::Create(
    const PublishConfig& config, carbon_aware::LocationNames names, bool locations_from_nodes,
    const carbon_aware::CarbonAwareData& data, Clock& clock,
    const kube::KubeEnvironment& environment, prometheus::Registry* registry) {
  KedaPublisherOptions options;
  for (std::size_t i = 0; i < config.keda_configmaps.size(); ++i) {
    const KedaConfigMapConfig& configmap = config.keda_configmaps[i];
    absl::StatusOr<std::string> grid = names.GridLocation(configmap.location, data.GridLocations());
    if (!grid.ok() && !locations_from_nodes) {
      return absl::InvalidArgumentError(
          absl::StrCat("publish.keda_configmaps[", i, "].location: ", grid.status().message()));
    }
    options.configmaps.push_back(
        {configmap.location, configmap.name, configmap.namespace_name, configmap.key});
  }
  absl::StatusOr<kube::KubeConnection> connection = Connection(config, environment);
  if (!connection.ok()) return connection.status();
  absl::StatusOr<std::unique_ptr<net::CurlHttpClient>> curl = net::CurlHttpClient::Create(
      absl::StrCat("carbonroute-collector/", CARBONROUTE_VERSION, " (KEDA ConfigMaps)"));
  if (!curl.ok()) {
    return absl::Status(curl.status().code(), absl::StrCat("publish: starting the HTTP client: ",
                                                           curl.status().message()));
  }
  std::unique_ptr<KedaPublishing> publishing(new KedaPublishing());
  publishing->http_ = *std::move(curl);
  publishing->client_ =
      std::make_unique<kube::KubeClient>(*std::move(connection), *publishing->http_);
  options.grid_location = [names = std::move(names), &data](const std::string& location) {
    return names.GridLocation(location, data.GridLocations());
  };
  options.lease = {.namespace_name = config.lease_namespace,
                   .name = config.lease_name,
                   .identity = kube::ReplicaIdentity(),
                   .duration = config.lease_duration};
  options.history = config.history;
  spdlog::info("keda: {} ConfigMap(s) through {}; Lease {}/{} as {}", options.configmaps.size(),
               publishing->client_->connection().Describe(), options.lease.namespace_name,
               options.lease.name, options.lease.identity);
  if (registry != nullptr) publishing->metrics_ = std::make_unique<KedaMetrics>(*registry);
  publishing->publisher_ = std::make_unique<KedaPublisher>(std::move(options), *publishing->client_,
                                                           data, clock, publishing->metrics_.get());
  return publishing;
}

}  // namespace carbonroute::keda
