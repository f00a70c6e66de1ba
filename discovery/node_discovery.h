// File: discovery/node_discovery.h
//
// Kubernetes Nodes as RTT peers: lists every Node, then watches for changes,
// the list-then-watch protocol of the API
// (https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes):
//
//   1. GET /api/v1/nodes?limit=N[&continue=T][&labelSelector=S], page by page
//      (a 410 mid-list, an expired continue token, starts the list again);
//   2. GET /api/v1/nodes?watch=true&resourceVersion=V&allowWatchBookmarks=true
//      &timeoutSeconds=T, streamed: ADDED/MODIFIED/DELETED update the set,
//      BOOKMARK advances V, an ERROR event or HTTP 410 (V expired) lists again;
//   3. a watch the server ends (timeoutSeconds) resumes at once from V; a
//      request that fails (refused, TLS, 5xx, timeout) is retried after a
//      backoff (initial, doubled per failure up to max, ×[0.5, 1.5) jitter).
//
// While the API server cannot be reached, the last Nodes known stay in the
// set: the listener is not told of a failure, only of a changed set.
//
// The bearer token file is read again before every request, so a rotated
// projected service-account token is picked up by the next one. TLS is
// verified against the endpoint's CA file (libcurl; never disabled).
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
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "config/collector_config.h"
#include "discovery/kube_api_endpoint.h"
#include "discovery/kube_node.h"
#include "net/http_client.h"

namespace carbonroute::discovery {

struct NodeDiscoveryOptions {
  KubeApiEndpoint endpoint;
  std::string self_name;  // this collector's Node ("" = none)
  std::string label_selector;
  int page_size = 500;
  absl::Duration watch_timeout = absl::Minutes(5);
  absl::Duration request_timeout = absl::Seconds(30);
  absl::Duration backoff_initial = absl::Seconds(1);
  absl::Duration backoff_max = absl::Minutes(1);
  std::optional<uint64_t> seed;  // backoff jitter; nullopt: random
};

// The options of `config` with `endpoint` and `self_name`.
NodeDiscoveryOptions DiscoveryOptionsFrom(const KubernetesDiscoveryConfig& config,
                                          KubeApiEndpoint endpoint, std::string self_name);

struct NodeDiscoveryStats {
  int64_t lists = 0;             // complete lists (all pages)
  int64_t pages = 0;             // list pages received
  int64_t watches = 0;           // watch requests answered 200
  int64_t events = 0;            // watch events applied (bookmarks included)
  int64_t relists = 0;           // lists started again after a 410 or an ERROR event
  int64_t failures = 0;          // requests that failed (transport, status, parse)
  int64_t notifications = 0;     // listener calls
  std::string resource_version;  // the newest one seen
  std::string last_error;        // of the newest failure ("" before any)
};

class NodeDiscovery {
 public:
  // `nodes`: every Node known, sorted by name, the collector's own included
  // when the selector admits it; `self`: the collector's own Node once known.
  using Listener =
      std::function<void(const std::vector<KubeNode>& nodes, const std::optional<KubeNode>& self)>;

  NodeDiscovery(NodeDiscoveryOptions options, net::HttpClient& http, Clock& clock,
                Listener listener);

  // Lists and watches until `stop` is notified (requests in flight are
  // cancelled within about a second).
  void Run(absl::Notification& stop);

  NodeDiscoveryStats stats() const;

 private:
  enum class WatchEnd { kServerEnded, kRelist, kFailed, kStopped };

  // Every page, replacing the known set; kCancelled on stop.
  absl::Status List(absl::Notification& stop);
  WatchEnd Watch(absl::Notification& stop);
  // Applies the complete lines of `buffer_`; sets relist_ on an ERROR event.
  bool ApplyLines(std::string& buffer, bool& relist);
  absl::StatusOr<net::HttpResponse> Get(const std::string& path_and_query, absl::Notification& stop,
                                        absl::Duration timeout,
                                        std::function<bool(std::string_view)> on_body = nullptr);
  void FetchSelfIfMissing(absl::Notification& stop);
  void Notify();
  void Failed(const std::string& what);
  void Succeeded();
  absl::Duration NextBackoff();  // base/backoff.h after consecutive_failures_

  const NodeDiscoveryOptions options_;
  net::HttpClient& http_;
  Clock& clock_;
  const Listener listener_;
  std::map<std::string, KubeNode, std::less<>> nodes_;  // Run() thread only
  std::optional<KubeNode> self_;
  std::string resource_version_;
  int consecutive_failures_ = 0;
  std::string last_failure_;  // logged once per change
  std::mt19937_64 random_;
  mutable absl::Mutex mutex_;
  NodeDiscoveryStats stats_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace carbonroute::discovery

#endif  // CARBONROUTE_DISCOVERY_NODE_DISCOVERY_H_
