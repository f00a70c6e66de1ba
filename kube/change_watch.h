// File: kube/change_watch.h
//
// A watch of one collection between its owner's lists (hold's Jobs and Pods,
// the Karmada controller's policies): list_watch.h in watch-only mode, from
// the resourceVersion of the owner's list, on its own thread. ADDED,
// MODIFIED and DELETED events call `on_change` (the owner lists again at its
// next pass); bookmarks only advance the version; an ERROR event or HTTP 410
// (the version expired) calls `on_change` and ends the watch until Start() is
// called again with a newer list's version. A stream the server ends resumes;
// a failed request is retried after about a second. Each watch asks the
// server to end it after `timeout` (timeoutSeconds; at least a second).
//
// Ownership: borrows the client. Thread safety: Start/Stop from one thread;
// `on_change` runs on the watch's thread.
#ifndef CARBONROUTE_KUBE_CHANGE_WATCH_H_
#define CARBONROUTE_KUBE_CHANGE_WATCH_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "kube/kube_client.h"
#include "kube/list_watch.h"

namespace carbonroute::kube {

struct WatchedCollection {
  std::string path;       // "/apis/batch/v1/jobs"
  std::string list_kind;  // "JobList", in parse errors
  std::string label_selector;
};

class ChangeWatch final : private ListWatchHandler {
 public:
  ChangeWatch(const KubeClient& client, WatchedCollection collection, absl::Duration timeout,
              std::function<void()> on_change)
      : client_(client),
        collection_(std::move(collection)),
        timeout_(timeout),
        on_change_(std::move(on_change)) {}
  ~ChangeWatch() override { Stop(); }
  ChangeWatch(const ChangeWatch&) = delete;
  ChangeWatch& operator=(const ChangeWatch&) = delete;

  // Watches from `resource_version` (a list's), unless a watch already runs.
  void Start(const std::string& resource_version);
  void Stop();
  bool running() const { return running_; }
  const WatchedCollection& collection() const { return collection_; }

 private:
  // ListWatchHandler: every change, and an expired version, ask for a list.
  absl::Status OnListItem(const JsonField&) override { return absl::OkStatus(); }
  absl::Status OnEvent(WatchEventType, const JsonField&) override;
  void OnExpired() override { on_change_(); }

  const KubeClient& client_;
  const WatchedCollection collection_;
  const absl::Duration timeout_;
  const std::function<void()> on_change_;
  std::unique_ptr<absl::Notification> stop_;
  std::thread thread_;
  std::atomic<bool> running_{false};
};

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_CHANGE_WATCH_H_
