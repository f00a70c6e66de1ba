#include "controller_runtime/object_events.h"

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"

namespace carbonroute::controller_runtime {

void ObjectEvents::Say(const kube::ObjectReference& object, const std::string& what,
                       kube::EventType type, const std::string& reason, const std::string& message,
                       absl::Time now) {
  Report(Record(object, type, reason, message, now), what);
}

absl::Status ObjectEvents::Record(const kube::ObjectReference& object, kube::EventType type,
                                  const std::string& reason, const std::string& message,
                                  absl::Time now) const {
  if (recorder_ == nullptr) return absl::OkStatus();
  return recorder_->Record(object, type, reason, message, now);
}

void ObjectEvents::Report(const absl::Status& recorded, const std::string& what) {
  if (recorded.ok()) return;
  metrics_.Error("event");
  spdlog::warn(absl::StrCat(controller_, ": an Event on ", what, ": ", recorded.message()));
}

}  // namespace carbonroute::controller_runtime
