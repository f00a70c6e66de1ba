// File: keda/keda_publisher.h
//
// Keeps the ConfigMaps of publish.keda_configmaps (keda_forecast.h) current:
// on every pass, the replica holding the Lease (kube/lease_election.h) reads
// each location's forecast from the cache and writes its ConfigMap when the
// records or the message changed since this replica last wrote it (and on its
// first pass as the leader, whatever another replica wrote).
//
// The ConfigMap is updated in place (a JSON merge patch of `data` and
// `binaryData`), so the operator never finds it missing; only when it does not
// exist is it created (POST). Azure's exporter creates its ConfigMap with
// `immutable: true`, which refuses any update (422): such a ConfigMap is
// deleted and created again once, said in the log; carbonroute's own is not
// immutable, so it is never absent again.
//
// RBAC (deploy/kubernetes/collector-carbon-role.yaml): configmaps get, create,
// patch, delete in each ConfigMap's namespace; leases get, create, update in
// the Lease's.
//
// Errors: a failed write is logged (once per distinct error and ConfigMap)
// and tried again on the next pass; nothing stops the collector. A location
// the cache cannot answer for is logged the same way.
// The passes run on kube/controller_loop.h (the Lease, a pass every
// `interval` or sooner when the Lease needs renewing, waits on the Clock);
// this class is the loop's Reconciler, with nothing to list.
//
// Ownership: borrows the client, the data and the clock, which must outlive it.
// Thread safety: RunOnce and Run on one thread.
#ifndef CARBONROUTE_KEDA_KEDA_PUBLISHER_H_
#define CARBONROUTE_KEDA_KEDA_PUBLISHER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "carbon_aware/carbon_aware_api.h"
#include "keda/keda_forecast.h"
#include "keda/keda_metrics.h"
#include "kube/controller_loop.h"
#include "kube/kube_client.h"
#include "kube/lease_election.h"

namespace carbonroute::keda {

struct PublishedConfigMap {
  std::string location;  // as configured: "eastus", "DE"
  std::string name, namespace_name, key;
};

struct KedaPublisherOptions {
  std::vector<PublishedConfigMap> configmaps;
  // The grid location the cache knows a configured location as ("eastus" →
  // "US-MIDA-PJM"), asked on every pass; an error is logged as a failure.
  std::function<absl::StatusOr<std::string>(const std::string&)> grid_location;
  kube::LeaseOptions lease;
  absl::Duration history = absl::Hours(24);
  absl::Duration interval = absl::Seconds(10);  // between passes
};

// Counts of what a pass did, for tests and the log.
struct PublishCounts {
  int written = 0;    // patched or created
  int unchanged = 0;  // nothing new since the last write
  int failed = 0;
};

class KedaPublisher final : private kube::Reconciler {
 public:
  // `metrics` (may be null) is borrowed and must outlive the publisher.
  KedaPublisher(KedaPublisherOptions options, const kube::KubeClient& client,
                const carbon_aware::CarbonAwareData& data, Clock& clock,
                KedaMetrics* metrics = nullptr);

  // One pass at `clock.Now()`: the Lease, then every ConfigMap if leading.
  PublishCounts RunOnce();
  // Passes every `interval` (sooner when the Lease needs renewing) until `stop`.
  void Run(absl::Notification& stop) { loop_.Run(stop); }
  bool leading() const { return lease_.leading(); }

 private:
  // kube::Reconciler: nothing to list; a pass publishes while leading.
  absl::StatusOr<kube::ListedVersions> List(absl::Time) override { return kube::ListedVersions{}; }
  void Reconcile(const kube::ControllerPass& pass) override;

  // Writes one ConfigMap; the error, if any.
  absl::Status Write(const PublishedConfigMap& configmap, const KedaForecast& forecast,
                     absl::Time now);

  const KedaPublisherOptions options_;
  const kube::KubeClient& client_;
  const carbon_aware::CarbonAwareData& data_;
  KedaMetrics* const metrics_;
  kube::LeaseElection lease_;
  kube::ControllerLoop loop_;
  bool was_leading_ = false;
  PublishCounts counts_;                           // the last pass's
  std::map<std::string, KedaForecast> written_;    // namespace/name/key → last written
  std::map<std::string, std::string> last_error_;  // namespace/name/key → last logged error
};

}  // namespace carbonroute::keda

#endif  // CARBONROUTE_KEDA_KEDA_PUBLISHER_H_
