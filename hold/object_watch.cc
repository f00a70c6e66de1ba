#include "hold/object_watch.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "net/url.h"

namespace carbonroute::hold {

void ObjectWatch::Start(const std::string& resource_version) {
  if (running_) return;
  if (thread_.joinable()) thread_.join();  // a watch that ended on its own
  stopping_ = false;
  running_ = true;
  thread_ = std::thread([this, resource_version] { Run(resource_version); });
}

void ObjectWatch::Stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  running_ = false;
}

bool ObjectWatch::ApplyLines(std::string& buffer, std::string& resource_version) {
  for (std::size_t end = buffer.find('\n'); end != std::string::npos; end = buffer.find('\n')) {
    const nlohmann::json event =
        nlohmann::json::parse(buffer.substr(0, end), nullptr, /*allow_exceptions=*/false);
    buffer.erase(0, end + 1);
    if (event.is_discarded() || !event.is_object()) continue;
    const std::string type = event.value("type", "");
    if (type == "ERROR") {  // 410 Gone, or another failure: list again
      on_change_();
      return false;
    }
    const auto object = event.find("object");
    if (object != event.end() && object->is_object() && object->contains("metadata") &&
        (*object)["metadata"].is_object()) {
      resource_version = (*object)["metadata"].value("resourceVersion", resource_version);
    }
    if (type == "ADDED" || type == "MODIFIED" || type == "DELETED") on_change_();
  }
  return true;
}

void ObjectWatch::Run(std::string resource_version) {
  while (!stopping_) {
    const std::string path =
        absl::StrCat(CollectionPath(kind_), net::Query({{"watch", "true"},
                                                        {"labelSelector", selector_},
                                                        {"resourceVersion", resource_version},
                                                        {"allowWatchBookmarks", "true"},
                                                        {"timeoutSeconds", "300"}}));
    std::string buffer;
    bool ended = false;
    absl::StatusOr<net::HttpResponse> response = api_.Call(
        "GET", path, "", "", absl::Seconds(330),
        [&](std::string_view chunk) {
          buffer.append(chunk);
          if (!ApplyLines(buffer, resource_version)) ended = true;
          return !ended && !stopping_;
        },
        [this] { return stopping_.load(); });
    if (ended || stopping_) break;
    if (response.ok() && response->status == 410) {
      on_change_();  // the version expired: list again, then watch from the new one
      break;
    }
    if (!response.ok() || response->status != 200) {
      for (int i = 0; i < 10 && !stopping_; ++i) absl::SleepFor(absl::Milliseconds(100));
    }
  }
  running_ = false;
}

}  // namespace carbonroute::hold
