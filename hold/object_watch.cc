#include "hold/object_watch.h"

#include "absl/strings/str_cat.h"
#include "base/clock.h"

namespace carbonroute::hold {

absl::Status ObjectWatch::OnEvent(kube::WatchEventType, const kube::JsonField&) {
  on_change_();
  return absl::OkStatus();
}

void ObjectWatch::Start(const std::string& resource_version) {
  if (running_) return;
  if (thread_.joinable()) thread_.join();  // a watch that ended on its own
  stop_ = std::make_unique<absl::Notification>();
  running_ = true;
  kube::ListWatchOptions options;
  options.path = std::string(CollectionPath(kind_));
  options.list_kind = absl::StrCat(KindName(kind_), "List");
  options.label_selector = selector_;
  options.watch_timeout = absl::Minutes(5);
  options.backoff_initial = absl::Seconds(1);
  options.backoff_max = absl::Seconds(1);
  options.watch_from = resource_version;
  thread_ = std::thread([this, options = std::move(options)] {
    kube::ListWatch watch(options, client_, RealClock(), *this);
    watch.Run(*stop_);
    running_ = false;
  });
}

void ObjectWatch::Stop() {
  if (stop_ != nullptr && !stop_->HasBeenNotified()) stop_->Notify();
  if (thread_.joinable()) thread_.join();
  running_ = false;
}

}  // namespace carbonroute::hold
