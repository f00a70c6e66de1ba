// File: hold/object_watch.h
//
// A watch of the Jobs or Pods a label selector admits, between the hold
// controller's lists: kube/list_watch.h in watch-only mode, from the
// resourceVersion of the controller's list, on its own thread. ADDED,
// MODIFIED and DELETED events call `on_change` (the controller lists again
// at its next pass, within a second); bookmarks only advance the version; an
// ERROR event or HTTP 410 (the version expired) calls `on_change` and ends
// the watch until Start() is called again with a newer list's version. A
// stream the server ends resumes; a failed request is retried after about a
// second.
//
// Ownership: borrows the client. Thread safety: Start/Stop from one thread;
// `on_change` runs on the watch's thread.
#ifndef CARBONROUTE_HOLD_OBJECT_WATCH_H_
#define CARBONROUTE_HOLD_OBJECT_WATCH_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "hold/held_object.h"
#include "kube/kube_client.h"
#include "kube/list_watch.h"

namespace carbonroute::hold {

class ObjectWatch final : private kube::ListWatchHandler {
 public:
  ObjectWatch(const kube::KubeClient& client, HeldKind kind, std::string selector,
              std::function<void()> on_change)
      : client_(client),
        kind_(kind),
        selector_(std::move(selector)),
        on_change_(std::move(on_change)) {}
  ~ObjectWatch() override { Stop(); }
  ObjectWatch(const ObjectWatch&) = delete;
  ObjectWatch& operator=(const ObjectWatch&) = delete;

  // Watches from `resource_version` (a list's), unless a watch already runs.
  void Start(const std::string& resource_version);
  void Stop();
  bool running() const { return running_; }
  HeldKind kind() const { return kind_; }

 private:
  // kube::ListWatchHandler: every change, and an expired version, ask for a list.
  absl::Status OnListItem(const kube::JsonField&) override { return absl::OkStatus(); }
  absl::Status OnEvent(kube::WatchEventType, const kube::JsonField&) override;
  void OnExpired() override { on_change_(); }

  const kube::KubeClient& client_;
  const HeldKind kind_;
  const std::string selector_;
  const std::function<void()> on_change_;
  std::unique_ptr<absl::Notification> stop_;
  std::thread thread_;
  std::atomic<bool> running_{false};
};

}  // namespace carbonroute::hold

#endif  // CARBONROUTE_HOLD_OBJECT_WATCH_H_
