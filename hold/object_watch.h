// File: hold/object_watch.h
//
// A watch of the Jobs or Pods a label selector admits, the second half of
// the API's list-then-watch
// (https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes):
//   GET /apis/batch/v1/jobs?watch=true&labelSelector=S&resourceVersion=V
//       &allowWatchBookmarks=true&timeoutSeconds=300
// streamed on its own thread. ADDED, MODIFIED and DELETED events call
// `on_change` (the controller lists again at its next pass, within a
// second), BOOKMARK events only advance V; an ERROR event or HTTP 410 (V
// expired) calls `on_change` and ends the watch until Start() is called
// again with a newer list's V. A stream the server ends resumes from V; a
// failed request is retried after a second.
//
// Ownership: borrows the KubeApi. Thread safety: Start/Stop from one thread;
// `on_change` runs on the watch's thread.
#ifndef CARBONROUTE_HOLD_OBJECT_WATCH_H_
#define CARBONROUTE_HOLD_OBJECT_WATCH_H_

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "hold/held_object.h"
#include "hold/kube_api.h"

namespace carbonroute::hold {

class ObjectWatch {
 public:
  ObjectWatch(KubeApi& api, HeldKind kind, std::string selector, std::function<void()> on_change)
      : api_(api), kind_(kind), selector_(std::move(selector)), on_change_(std::move(on_change)) {}
  ~ObjectWatch() { Stop(); }
  ObjectWatch(const ObjectWatch&) = delete;
  ObjectWatch& operator=(const ObjectWatch&) = delete;

  // Watches from `resource_version` (a list's), unless a watch already runs.
  void Start(const std::string& resource_version);
  void Stop();
  bool running() const { return running_; }
  HeldKind kind() const { return kind_; }

 private:
  void Run(std::string resource_version);
  // Applies the complete lines of `buffer`; false to end the watch (ERROR).
  bool ApplyLines(std::string& buffer, std::string& resource_version);

  KubeApi& api_;
  const HeldKind kind_;
  const std::string selector_;
  const std::function<void()> on_change_;
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::atomic<bool> stopping_{false};
};

}  // namespace carbonroute::hold

#endif  // CARBONROUTE_HOLD_OBJECT_WATCH_H_
