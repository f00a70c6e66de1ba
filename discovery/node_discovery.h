// File: discovery/node_discovery.h
//
// Kubernetes Nodes as RTT peers: every Node listed, then watched for
// changes, through kube/list_watch.h (the API's list-then-watch: pages,
// bookmarks, 410 Gone lists again, backoff on failures).
//
// While the API server cannot be reached, the last Nodes known stay in the
// set: the listener is not told of a failure, only of a changed set. A
// status heartbeat that changes nothing read here (kube_node.h) is no change.
//
// The collector's own Node (`self_name`) is reported to the listener
// separately: from the list when the label selector admits it, else fetched
// once with GET /api/v1/nodes/{name}.
//
// Ownership: borrows the HTTP client and the clock; both must outlive it.
// Thread safety: Run() on one thread; the listener is called on it.
// stats() from any thread.
#ifndef CARBONROUTE_DISCOVERY_NODE_DISCOVERY_H_
#define CARBONROUTE_DISCOVERY_NODE_DISCOVERY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "config/collector_config.h"
#include "kube/kube_client.h"
#include "kube/kube_connection.h"
#include "kube/kube_node.h"
#include "kube/list_watch.h"
#include "net/http_client.h"

namespace carbonroute::discovery {

struct NodeDiscoveryOptions {
  kube::KubeConnection connection;
  std::string self_name;  // this collector's Node ("" = none)
  // The label selector, page size, timeouts and backoff (path and list kind
  // are set by NodeDiscovery).
  kube::ListWatchOptions list_watch;
};

// What rtt.discovery.kubernetes says of where the API is (kube/kube_connection.h).
kube::KubeOptions KubeOptionsFrom(const KubernetesDiscoveryConfig& config);

// The options of `config` with `connection` and `self_name`.
NodeDiscoveryOptions DiscoveryOptionsFrom(const KubernetesDiscoveryConfig& config,
                                          kube::KubeConnection connection, std::string self_name);

// kube::ListWatchStats and how often the listener was told.
struct NodeDiscoveryStats : kube::ListWatchStats {
  int64_t notifications = 0;  // listener calls
};

class NodeDiscovery final : private kube::ListWatchHandler {
 public:
  // `nodes`: every Node known, sorted by name, the collector's own included
  // when the selector admits it; `self`: the collector's own Node once known.
  using Listener = std::function<void(const std::vector<kube::KubeNode>& nodes,
                                      const std::optional<kube::KubeNode>& self)>;

  NodeDiscovery(NodeDiscoveryOptions options, net::HttpClient& http, Clock& clock,
                Listener listener);

  // Lists and watches until `stop` is notified (requests in flight are
  // cancelled within about a second).
  void Run(absl::Notification& stop);

  NodeDiscoveryStats stats() const;

 private:
  // kube::ListWatchHandler
  void OnListStart() override;
  absl::Status OnListItem(const kube::JsonField& item) override;
  void OnListed(const std::string& resource_version, int pages) override;
  absl::Status OnEvent(kube::WatchEventType type, const kube::JsonField& object) override;
  void OnEventsApplied() override;
  void OnFailure(const std::string& what) override;
  void OnRecovered() override;

  void FetchSelfIfMissing();
  void Notify();

  const NodeDiscoveryOptions options_;
  const kube::KubeClient client_;
  Clock& clock_;
  const Listener listener_;
  kube::ListWatch list_watch_;
  // Run() thread only.
  std::map<std::string, kube::KubeNode, std::less<>> nodes_, listing_;
  std::optional<kube::KubeNode> self_;
  bool changed_ = false;  // since the last notification
  absl::Time list_started_;
  std::string last_failure_;  // logged once per change
  absl::Notification* stop_ = nullptr;
  mutable absl::Mutex mutex_;
  int64_t notifications_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace carbonroute::discovery

#endif  // CARBONROUTE_DISCOVERY_NODE_DISCOVERY_H_
