// File: kube/list_watch.h
//
// The one list-then-watch loop of the project, the protocol of the API
// (https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes):
//
//   1. GET <path>?limit=N[&continue=T][&labelSelector=S], page by page
//      (kube_client.h ListAll: an expired continue token starts it again);
//   2. GET <path>?watch=true&resourceVersion=V&allowWatchBookmarks=true
//      &timeoutSeconds=T[&labelSelector=S], streamed, one event per line:
//      ADDED/MODIFIED/DELETED go to the handler, BOOKMARK only advances V,
//      an ERROR event or HTTP 410 (V expired) lists again;
//   3. a watch the server ends (timeoutSeconds) resumes at once from V; a
//      request that fails (refused, TLS, 401/403, 5xx, timeout, a malformed
//      answer) is retried after a backoff (base/backoff.h: initial, doubled
//      per failure up to max, ×[0.5, 1.5) jitter).
// With `watch_from` set, step 1 is skipped: the watch starts from that
// version (a list the caller made), and when it expires the handler's
// OnExpired is called and Run returns (the caller lists again).
//
// Ownership: borrows the client, the clock and the handler; all must outlive it.
// Thread safety: Run() on one thread; the handler is called on it. stats()
// from any thread.
#ifndef CARBONROUTE_KUBE_LIST_WATCH_H_
#define CARBONROUTE_KUBE_LIST_WATCH_H_

#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "kube/json_view.h"
#include "kube/kube_client.h"

namespace carbonroute::kube {

// How long a watch asks the API server to keep it open (timeoutSeconds) unless
// set otherwise: the server ends it then, and it resumes from the last version.
inline constexpr absl::Duration kDefaultWatchTimeout = absl::Minutes(5);

struct ListWatchOptions {
  std::string path;       // a collection: "/api/v1/nodes", "/apis/batch/v1/jobs"
  std::string list_kind;  // "NodeList", in parse errors
  std::string label_selector;
  int page_size = 500;
  absl::Duration watch_timeout = kDefaultWatchTimeout;  // the server ends a watch after this
  absl::Duration request_timeout = absl::Seconds(30);
  absl::Duration backoff_initial = absl::Seconds(1);
  absl::Duration backoff_max = absl::Minutes(1);
  std::optional<uint64_t> seed;           // backoff jitter; nullopt: random
  std::optional<std::string> watch_from;  // watch only, from this resourceVersion
};

enum class WatchEventType { kAdded, kModified, kDeleted };

// What the loop tells its owner. Errors returned from OnListItem fail the
// list (retried after a backoff); from OnEvent, they end the watch and list
// again (a malformed object).
class ListWatchHandler {
 public:
  virtual ~ListWatchHandler() = default;
  // A list starts (again): what an earlier one gave is about to be replaced.
  virtual void OnListStart() {}
  virtual absl::Status OnListItem(const JsonField& item) = 0;
  // Every page of a list arrived.
  virtual void OnListed(const std::string& /*resource_version*/, int /*pages*/) {}
  virtual absl::Status OnEvent(WatchEventType type, const JsonField& object) = 0;
  // After the events of one received chunk were applied (notify once per chunk).
  virtual void OnEventsApplied() {}
  // watch_from only: the version expired; Run returns next.
  virtual void OnExpired() {}
  // A request failed ("list: ...", "watch: HTTP 403: ..."); the loop backs off.
  virtual void OnFailure(const std::string& /*what*/) {}
  // A list or watch succeeded after failures.
  virtual void OnRecovered() {}
};

struct ListWatchStats {
  int64_t lists = 0;             // complete lists (all pages)
  int64_t pages = 0;             // list pages received
  int64_t watches = 0;           // watch requests answered 200
  int64_t events = 0;            // watch events applied (bookmarks included)
  int64_t relists = 0;           // lists started again after a 410 or an ERROR event
  int64_t failures = 0;          // requests that failed (transport, status, parse)
  std::string resource_version;  // the newest one seen
  std::string last_error;        // of the newest failure ("" before any)
};

class ListWatch {
 public:
  ListWatch(ListWatchOptions options, const KubeClient& client, Clock& clock,
            ListWatchHandler& handler);

  // Lists and watches until `stop` is notified (requests in flight are
  // cancelled within about a second), or, with watch_from, until the version
  // expires.
  void Run(absl::Notification& stop);

  ListWatchStats stats() const;

 private:
  enum class WatchEnd { kServerEnded, kRelist, kFailed, kStopped };

  absl::Status List(absl::Notification& stop);
  WatchEnd Watch(absl::Notification& stop);
  // Applies the complete lines of `buffer`; sets `relist` on an ERROR event
  // or a malformed line.
  bool ApplyLines(std::string& buffer, bool& relist);
  void Failed(const std::string& what);
  void Succeeded();

  const ListWatchOptions options_;
  const KubeClient& client_;
  Clock& clock_;
  ListWatchHandler& handler_;
  JsonDocument event_document_;  // Run() thread only
  std::string resource_version_;
  int consecutive_failures_ = 0;
  std::mt19937_64 random_;
  mutable absl::Mutex mutex_;
  ListWatchStats stats_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_LIST_WATCH_H_
