#include "kube/list_watch.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "base/backoff.h"
#include "net/url.h"

namespace carbonroute::kube {
ListWatch::ListWatch(ListWatchOptions options, const KubeClient& client, Clock& clock,
                     ListWatchHandler& handler)
    : options_(std::move(options)),
      client_(client),
      clock_(clock),
      handler_(handler),
      random_(options_.seed.value_or(std::random_device{}())) {}

ListWatchStats ListWatch::stats() const {
  absl::MutexLock lock(&mutex_);
  return stats_;
}

void ListWatch::Failed(const std::string& what) {
  ++consecutive_failures_;
  {
    absl::MutexLock lock(&mutex_);
    ++stats_.failures;
    stats_.last_error = what;
  }
  handler_.OnFailure(what);
}

void ListWatch::Succeeded() {
  if (consecutive_failures_ > 0) handler_.OnRecovered();
  consecutive_failures_ = 0;
}

absl::Status ListWatch::List(absl::Notification& stop) {
  handler_.OnListStart();
  ListRequest request;
  request.path = options_.path;
  request.list_kind = options_.list_kind;
  request.label_selector = options_.label_selector;
  request.page_size = options_.page_size;
  request.timeout = options_.request_timeout;
  request.cancelled = [&stop] { return stop.HasBeenNotified(); };
  absl::StatusOr<ListResult> listed = ListAll(
      client_, request, [this](const JsonField& item) { return handler_.OnListItem(item); },
      [this] { handler_.OnListStart(); });
  if (stop.HasBeenNotified()) return absl::CancelledError("stopped");
  if (!listed.ok()) return listed.status();
  resource_version_ = listed->resource_version;
  {
    absl::MutexLock lock(&mutex_);
    ++stats_.lists;
    stats_.pages += listed->pages;
    stats_.resource_version = resource_version_;
  }
  handler_.OnListed(resource_version_, listed->pages);
  return absl::OkStatus();
}

bool ListWatch::ApplyLines(std::string& buffer, bool& relist) {
  bool applied = false;
  std::size_t start = 0;
  for (std::size_t end; (end = buffer.find('\n', start)) != std::string::npos; start = end + 1) {
    const absl::string_view line =
        absl::StripAsciiWhitespace(absl::string_view(buffer).substr(start, end - start));
    if (line.empty()) continue;
    absl::StatusOr<JsonField> event = event_document_.Parse(line, "watch event");
    absl::Status problem = event.ok() ? event->RequireObject() : event.status();
    std::string type;
    if (problem.ok()) {
      absl::StatusOr<std::string> text = (*event)["type"].OptionalString();
      problem = text.status();
      if (text.ok()) type = *text;
    }
    if (problem.ok() && (*event)["object"].missing()) problem = (*event)["object"].Error("missing");
    if (!problem.ok()) {
      handler_.OnFailure(absl::StrCat(problem.message(), "; listing again"));
      relist = true;
      break;
    }
    {
      absl::MutexLock lock(&mutex_);
      ++stats_.events;
    }
    const JsonField object = (*event)["object"];
    if (type == "ERROR") {
      handler_.OnFailure(absl::StrCat("watch ERROR event (code ",
                                      object["code"].OptionalInt().value_or(0).value_or(0), ": ",
                                      DescribeStatus(object), "); listing again"));
      relist = true;
      break;
    }
    absl::StatusOr<std::string> version = object["metadata"]["resourceVersion"].OptionalString();
    if (version.ok() && !version->empty()) resource_version_ = *version;
    WatchEventType event_type;
    if (type == "ADDED") {
      event_type = WatchEventType::kAdded;
    } else if (type == "MODIFIED") {
      event_type = WatchEventType::kModified;
    } else if (type == "DELETED") {
      event_type = WatchEventType::kDeleted;
    } else if (type == "BOOKMARK") {
      continue;
    } else {
      handler_.OnFailure(absl::StrCat(
          (*event)["type"].Error(absl::StrCat("unknown event type \"", type, "\"")).message(),
          "; listing again"));
      relist = true;
      break;
    }
    if (absl::Status status = handler_.OnEvent(event_type, object); !status.ok()) {
      handler_.OnFailure(absl::StrCat(status.message(), "; listing again"));
      relist = true;
      break;
    }
    applied = true;
  }
  buffer.erase(0, start);
  return applied;
}

ListWatch::WatchEnd ListWatch::Watch(absl::Notification& stop) {
  std::vector<std::pair<std::string, std::string>> query = {
      {"watch", "true"},
      {"resourceVersion", resource_version_},
      {"allowWatchBookmarks", "true"},
      {"timeoutSeconds", absl::StrCat(absl::ToInt64Seconds(options_.watch_timeout))}};
  if (!options_.label_selector.empty())
    query.emplace_back("labelSelector", options_.label_selector);
  const std::string path = absl::StrCat(options_.path, net::Query(query));
  std::string buffer;
  bool relist = false, answered = false;
  absl::StatusOr<net::HttpResponse> response =
      client_.Call({.method = "GET",
                    .path = path,
                    .timeout = options_.watch_timeout + options_.request_timeout,
                    .on_body =
                        [&](std::string_view chunk) {
                          if (!answered) {
                            answered = true;
                            absl::MutexLock lock(&mutex_);
                            ++stats_.watches;
                          }
                          buffer.append(chunk);
                          if (ApplyLines(buffer, relist)) handler_.OnEventsApplied();
                          {
                            absl::MutexLock lock(&mutex_);
                            stats_.resource_version = resource_version_;
                          }
                          return !relist;
                        },
                    .cancelled = [&stop] { return stop.HasBeenNotified(); }});
  if (stop.HasBeenNotified()) return WatchEnd::kStopped;
  if (relist) return WatchEnd::kRelist;
  if (!response.ok()) {
    Failed(absl::StrCat("watch: ", response.status().message()));
    return WatchEnd::kFailed;
  }
  if (response->status == kHttpGone) {
    handler_.OnFailure(
        absl::StrCat("resourceVersion ", resource_version_, " expired (HTTP 410); listing again"));
    return WatchEnd::kRelist;
  }
  if (response->status < 200 || response->status > 299) {
    Failed(absl::StrCat("watch: ", ApiError("GET", path, *response).message()));
    return WatchEnd::kFailed;
  }
  if (!answered) {  // a 200 with an empty stream still counts as a watch
    absl::MutexLock lock(&mutex_);
    ++stats_.watches;
  }
  Succeeded();
  return WatchEnd::kServerEnded;
}

void ListWatch::Run(absl::Notification& stop) {
  bool need_list = !options_.watch_from.has_value();
  if (options_.watch_from) resource_version_ = *options_.watch_from;
  auto back_off = [&] {
    return clock_.WaitUntil(
        clock_.Now() + JitteredBackoff(options_.backoff_initial, options_.backoff_max,
                                       std::max(consecutive_failures_, 1), random_),
        stop);
  };
  while (!stop.HasBeenNotified()) {
    if (need_list) {
      absl::Status listed = List(stop);
      if (stop.HasBeenNotified()) return;
      if (!listed.ok()) {
        Failed(absl::StrCat("list: ", listed.message()));
        if (back_off()) return;
        continue;
      }
      Succeeded();
      need_list = false;
    }
    switch (Watch(stop)) {
      case WatchEnd::kStopped:
        return;
      case WatchEnd::kRelist: {
        if (options_.watch_from) {
          handler_.OnExpired();
          return;
        }
        need_list = true;
        absl::MutexLock lock(&mutex_);
        ++stats_.relists;
        break;
      }
      case WatchEnd::kServerEnded:
        break;  // resume from resource_version_ at once
      case WatchEnd::kFailed:
        if (back_off()) return;
        break;
    }
  }
}

}  // namespace carbonroute::kube
