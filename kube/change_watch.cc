#include "kube/change_watch.h"

#include "base/clock.h"

namespace carbonroute::kube {

absl::Status ChangeWatch::OnEvent(WatchEventType, const JsonField&) {
  on_change_();
  return absl::OkStatus();
}

void ChangeWatch::Start(const std::string& resource_version) {
  if (running_) return;
  if (thread_.joinable()) thread_.join();  // a watch that ended on its own
  stop_ = std::make_unique<absl::Notification>();
  running_ = true;
  ListWatchOptions options;
  options.path = collection_.path;
  options.list_kind = collection_.list_kind;
  options.label_selector = collection_.label_selector;
  options.watch_timeout = timeout_;
  options.backoff_initial = absl::Seconds(1);
  options.backoff_max = absl::Seconds(1);
  options.watch_from = resource_version;
  thread_ = std::thread([this, options = std::move(options)] {
    ListWatch watch(options, client_, RealClock(), *this);
    watch.Run(*stop_);
    running_ = false;
  });
}

void ChangeWatch::Stop() {
  if (stop_ != nullptr && !stop_->HasBeenNotified()) stop_->Notify();
  if (thread_.joinable()) thread_.join();
  running_ = false;
}

}  // namespace carbonroute::kube
