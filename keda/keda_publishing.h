// File: keda/keda_publishing.h
//
// The collector's `publish` section put to work: the Kubernetes API found as
// the collector's Node discovery finds it (kube/kube_connection.h: api_url,
// kubeconfig, context; none: $KUBECONFIG, in a Pod the service account, else
// ~/.kube/config), its own HTTP client, a Lease named by publish.lease (held
// as $POD_NAME, else host-pid), and the KedaPublisher writing every
// publish.keda_configmaps entry (keda_publisher.h).
//
// A ConfigMap's location is a grid location or a cloud region
// (carbon_aware/location_names.h), resolved on every pass, so that a
// location the carbon role learns from the Nodes (`locations: nodes`) is
// found once its Nodes are listed.
//
// Errors (Create): kube_connection.h's, prefixed "publish"; kInvalidArgument
// "publish.keda_configmaps[i].location: ..." naming a location no provider
// can poll (when no provider takes its locations from the Nodes).
// Ownership: owns the HTTP client, the API client and the publisher; borrows
// the data and the clock. Thread safety: Run on one thread.
#ifndef CARBONROUTE_KEDA_KEDA_PUBLISHING_H_
#define CARBONROUTE_KEDA_KEDA_PUBLISHING_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "base/clock.h"
#include "carbon_aware/carbon_aware_api.h"
#include "carbon_aware/location_names.h"
#include "config/collector_config.h"
#include "keda/keda_metrics.h"
#include "keda/keda_publisher.h"
#include "kube/kube_client.h"
#include "kube/kube_connection.h"
#include "net/http_client.h"

namespace carbonroute::keda {

class KedaPublishing {
 public:
  // `locations_from_nodes`: some provider polls the Nodes' locations, known later.
  // `registry` (may be null; borrowed, must outlive this) gets keda_metrics.h's metrics.
  static absl::StatusOr<std::unique_ptr<KedaPublishing>> Create(
      const PublishConfig& config, carbon_aware::LocationNames names, bool locations_from_nodes,
      const carbon_aware::CarbonAwareData& data, Clock& clock,
      const kube::KubeEnvironment& environment, prometheus::Registry* registry = nullptr);

  // The API connection `config` names (what --check-config checks).
  static absl::StatusOr<kube::KubeConnection> Connection(const PublishConfig& config,
                                                         const kube::KubeEnvironment& environment);

  void Run(absl::Notification& stop) { publisher_->Run(stop); }
  const kube::KubeConnection& connection() const { return client_->connection(); }

 private:
  KedaPublishing() = default;

  std::unique_ptr<net::HttpClient> http_;
  std::unique_ptr<kube::KubeClient> client_;
  std::unique_ptr<KedaMetrics> metrics_;  // null without a registry
  std::unique_ptr<KedaPublisher> publisher_;
};

}  // namespace carbonroute::keda

#endif  // CARBONROUTE_KEDA_KEDA_PUBLISHING_H_
