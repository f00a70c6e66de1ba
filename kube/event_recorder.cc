#include "kube/event_recorder.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "base/utc_time.h"

namespace carbonroute::kube {

absl::Status EventRecorder::Record(const ObjectReference& object, EventType type,
                                   const std::string& reason, const std::string& message,
                                   absl::Time now) const {
  constexpr std::size_t kLongestMessage = 1024;  // the API server's limit for a core/v1 Event
  const std::string namespace_name =
      object.namespace_name.empty() ? "default" : object.namespace_name;
  nlohmann::json involved = {
      {"apiVersion", object.api_version}, {"kind", object.kind}, {"name", object.name}};
  if (!object.namespace_name.empty()) involved["namespace"] = object.namespace_name;
  if (!object.uid.empty()) involved["uid"] = object.uid;
  const std::string at = UtcSeconds(now);
  const nlohmann::json event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata",
       {{"generateName", absl::StrCat(object.name, ".")}, {"namespace", namespace_name}}},
      {"involvedObject", involved},
      {"type", type == EventType::kNormal ? "Normal" : "Warning"},
      {"reason", reason},
      {"message", message.substr(0, kLongestMessage)},
      {"source", {{"component", component_}}},
      {"reportingComponent", component_},
      {"reportingInstance", instance_},
      {"firstTimestamp", at},
      {"lastTimestamp", at},
      {"count", 1}};
  absl::StatusOr<std::string> created =
      client_.Create(absl::StrCat("/api/v1/namespaces/", namespace_name, "/events"),
                     event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return created.status();
}

}  // namespace carbonroute::kube
