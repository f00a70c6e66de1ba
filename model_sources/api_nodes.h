// File: model_sources/api_nodes.h
//
// The cluster's Nodes as `scheduler-lite serve` sees them through the
// Kubernetes API (GET and watch /api/v1/nodes, kube/list_watch.h), read with
// the one Node reader (kube/kube_node.h): its name, grid location label,
// region (GreenCourier's node.kubernetes.io/region annotation, else
// topology.kubernetes.io/region), zone, and whether it is a Liqo virtual
// node. With them, a Node that runs no collector (a Liqo virtual node, one per
// remote cluster; a Node whose collector is not up yet) is still a candidate:
// ModelBuilder::AddApiNodes adds it to the model (model_builder.h).
//
// kube-scheduler with `nodeCacheCapable: true` sends the extender only Node
// names, "assuming that the extender already cached full details of all
// nodes"
// (https://kubernetes.io/docs/reference/config-api/kube-scheduler-config.v1/#kubescheduler-config-k8s-io-v1-Extender):
// this is that cache.
//
// Ownership: borrows the client and the clock. Thread safety: Run() on one
// thread; nodes() and describe() from any.
#ifndef CARBONROUTE_MODEL_SOURCES_API_NODES_H_
#define CARBONROUTE_MODEL_SOURCES_API_NODES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "base/clock.h"
#include "kube/kube_client.h"
#include "kube/kube_node.h"
#include "kube/list_watch.h"

namespace carbonroute::model_sources {

class ApiNodes final : private kube::ListWatchHandler {
 public:
  // `watch_timeout`: how long the API server keeps each watch of the Nodes open.
  ApiNodes(const kube::KubeClient& client, Clock& clock,
           absl::Duration watch_timeout = kube::kDefaultWatchTimeout);

  // Lists and watches until `stop` is notified.
  void Run(absl::Notification& stop);

  // The Nodes known now, by name.
  std::vector<kube::KubeNode> nodes() const;
  // "Nodes (6, 3 Liqo virtual)"; with the last failure while the API cannot be read.
  std::string describe() const;
  // Waits (real time) until the first list of the Nodes has completed, at most `timeout`;
  // whether it has. serve builds its first model after it: a model built before would
  // know none of the Nodes kube-scheduler names (nodeCacheCapable), refuse every Node to
  // a Pod with a latency limit, and kube-scheduler would park that Pod for minutes.
  bool WaitForFirstList(absl::Duration timeout) const;

 private:
  void OnListStart() override { listing_.clear(); }
  absl::Status OnListItem(const kube::JsonField& item) override;
  void OnListed(const std::string& resource_version, int pages) override;
  absl::Status OnEvent(kube::WatchEventType type, const kube::JsonField& object) override;
  void OnFailure(const std::string& what) override;
  void OnRecovered() override;

  kube::ListWatch list_watch_;
  std::map<std::string, kube::KubeNode> listing_;  // Run() thread only
  mutable absl::Mutex mutex_;
  std::map<std::string, kube::KubeNode> nodes_ ABSL_GUARDED_BY(mutex_);
  std::string failure_ ABSL_GUARDED_BY(mutex_);
  absl::Notification first_list_;  // notified by the first OnListed
};

}  // namespace carbonroute::model_sources

#endif  // CARBONROUTE_MODEL_SOURCES_API_NODES_H_
