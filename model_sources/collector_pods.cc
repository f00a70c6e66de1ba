#include "model_sources/collector_pods.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace carbonroute::model_sources {
namespace {

kube::ListWatchOptions ListWatchOptionsFor(const CollectorPodsOptions& options) {
  kube::ListWatchOptions list_watch;
  list_watch.path = absl::StrCat("/api/v1/namespaces/", options.namespace_name, "/pods");
  list_watch.list_kind = "PodList";
  list_watch.label_selector = options.label_selector;
  list_watch.backoff_max = absl::Seconds(30);
  list_watch.watch_timeout = options.watch_timeout;
  return list_watch;
}

}  // namespace

CollectorPods::CollectorPods(CollectorPodsOptions options, const kube::KubeClient& client,
                             Clock& clock)
    : options_(std::move(options)),
      list_watch_(ListWatchOptionsFor(options_), client, clock, *this) {}

void CollectorPods::Run(absl::Notification& stop) { list_watch_.Run(stop); }

std::vector<std::string> CollectorPods::urls() const {
  absl::MutexLock lock(&mutex_);
  std::vector<std::string> urls;
  for (const auto& [name, url] : urls_) urls.push_back(url);
  std::sort(urls.begin(), urls.end());
  return urls;
}

std::string CollectorPods::describe() const {
  absl::MutexLock lock(&mutex_);
  return absl::StrCat("Pods ", options_.label_selector, " in ", options_.namespace_name, " (",
                      urls_.size(), " serving)",
                      failure_.empty() ? "" : absl::StrCat("; the API: ", failure_));
}

absl::Status CollectorPods::Read(const kube::JsonField& pod, std::string& name,
                                 std::string& url) const {
  CARBONROUTE_RETURN_IF_ERROR(pod.RequireObject());
  const kube::JsonField metadata = pod["metadata"];
  CARBONROUTE_ASSIGN_OR_RETURN(name, metadata["name"].RequiredString());
  url.clear();
  CARBONROUTE_ASSIGN_OR_RETURN(const std::string phase, pod["status"]["phase"].OptionalString());
  CARBONROUTE_ASSIGN_OR_RETURN(const std::string ip, pod["status"]["podIP"].OptionalString());
  if (phase != "Running" || ip.empty() || !metadata["deletionTimestamp"].missing()) {
    return absl::OkStatus();
  }
  std::map<std::string, std::string> annotations;
  CARBONROUTE_RETURN_IF_ERROR(metadata["annotations"].ReadStringMap(annotations));
  int port = options_.default_port;
  if (const auto it = annotations.find("prometheus.io/port"); it != annotations.end()) {
    if (!absl::SimpleAtoi(it->second, &port) || port <= 0 || port > 65535) {
      return metadata["annotations"]["prometheus.io/port"].Error(
          absl::StrCat("expected a port, got \"", it->second, "\""));
    }
  }
  std::string path = options_.default_path;
  if (const auto it = annotations.find("prometheus.io/path"); it != annotations.end()) {
    path = absl::StartsWith(it->second, "/") ? it->second : absl::StrCat("/", it->second);
  }
  url = absl::StrCat("http://", absl::StrContains(ip, ':') ? absl::StrCat("[", ip, "]") : ip, ":",
                     port, path);
  return absl::OkStatus();
}

void CollectorPods::OnListStart() { listing_.clear(); }

absl::Status CollectorPods::OnListItem(const kube::JsonField& item) {
  std::string name, url;
  CARBONROUTE_RETURN_IF_ERROR(Read(item, name, url));
  if (!url.empty()) listing_[name] = url;
  return absl::OkStatus();
}

void CollectorPods::OnListed(const std::string&, int) {
  absl::MutexLock lock(&mutex_);
  urls_ = std::move(listing_);
  listing_.clear();
}

absl::Status CollectorPods::OnEvent(kube::WatchEventType type, const kube::JsonField& object) {
  std::string name, url;
  CARBONROUTE_RETURN_IF_ERROR(Read(object, name, url));
  absl::MutexLock lock(&mutex_);
  if (type == kube::WatchEventType::kDeleted || url.empty()) {
    urls_.erase(name);
  } else {
    urls_[name] = url;
  }
  return absl::OkStatus();
}

void CollectorPods::OnFailure(const std::string& what) {
  absl::MutexLock lock(&mutex_);
  failure_ = what;
}

void CollectorPods::OnRecovered() {
  absl::MutexLock lock(&mutex_);
  failure_.clear();
}

}  // namespace carbonroute::model_sources
