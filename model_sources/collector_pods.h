// File: model_sources/collector_pods.h
//
// The collectors `scheduler-lite serve` reads, found through the Kubernetes
// API instead of a Prometheus: the Pods of a namespace that a label selector
// admits (the latency DaemonSet's, the carbon role's), listed and watched
// (kube/list_watch.h). Each Pod that is Running, has a podIP and is not
// being deleted is one `/metrics` URL: http://POD_IP:PORT/PATH, the port and
// path from the Pod's `prometheus.io/port` and `prometheus.io/path`
// annotations (the ones the shipped manifests set for a Prometheus), else
// the defaults given. An IPv6 podIP is bracketed.
//
// Ownership: borrows the client and the clock. Thread safety: Run() on one
// thread; urls() and describe() from any.
#ifndef CARBONROUTE_MODEL_SOURCES_COLLECTOR_PODS_H_
#define CARBONROUTE_MODEL_SOURCES_COLLECTOR_PODS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "base/clock.h"
#include "kube/kube_client.h"
#include "kube/list_watch.h"

namespace carbonroute::model_sources {

struct CollectorPodsOptions {
  std::string namespace_name;  // where the Pods are
  std::string label_selector;  // e.g. "app=carbonroute-collector"
  int default_port = 9464;
  std::string default_path = "/metrics";
  // How long the API server keeps each watch of the Pods open.
  absl::Duration watch_timeout = kube::kDefaultWatchTimeout;
};

class CollectorPods final : private kube::ListWatchHandler {
 public:
  CollectorPods(CollectorPodsOptions options, const kube::KubeClient& client, Clock& clock);

  // Lists and watches until `stop` is notified.
  void Run(absl::Notification& stop);

  // The metrics URLs of the Pods known now, sorted.
  std::vector<std::string> urls() const;
  // "Pods app=carbonroute-collector in carbonroute (3)"; with the last
  // failure while the API cannot be read.
  std::string describe() const;

 private:
  void OnListStart() override;
  absl::Status OnListItem(const kube::JsonField& item) override;
  void OnListed(const std::string& resource_version, int pages) override;
  absl::Status OnEvent(kube::WatchEventType type, const kube::JsonField& object) override;
  void OnFailure(const std::string& what) override;
  void OnRecovered() override;

  // The Pod's URL ("" when it is not a serving collector now) and name.
  absl::Status Read(const kube::JsonField& pod, std::string& name, std::string& url) const;

  const CollectorPodsOptions options_;
  kube::ListWatch list_watch_;
  std::map<std::string, std::string> listing_;  // Run() thread only
  mutable absl::Mutex mutex_;
  std::map<std::string, std::string> urls_ ABSL_GUARDED_BY(mutex_);  // Pod name → URL
  std::string failure_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace carbonroute::model_sources

#endif  // CARBONROUTE_MODEL_SOURCES_COLLECTOR_PODS_H_
