#include "model_sources/api_nodes.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace carbonroute::model_sources {
namespace {

kube::ListWatchOptions NodesListWatch(absl::Duration watch_timeout) {
  kube::ListWatchOptions list_watch;
  list_watch.watch_timeout = watch_timeout;
  list_watch.path = "/api/v1/nodes";
  list_watch.list_kind = "NodeList";
  list_watch.backoff_max = absl::Seconds(30);
  return list_watch;
}

}  // namespace

ApiNodes::ApiNodes(const kube::KubeClient& client, Clock& clock, absl::Duration watch_timeout)
    : list_watch_(NodesListWatch(watch_timeout), client, clock, *this) {}

void ApiNodes::Run(absl::Notification& stop) { list_watch_.Run(stop); }

std::vector<kube::KubeNode> ApiNodes::nodes() const {
  absl::MutexLock lock(&mutex_);
  std::vector<kube::KubeNode> nodes;
  nodes.reserve(nodes_.size());
  for (const auto& [name, node] : nodes_) nodes.push_back(node);
  return nodes;
}

std::string ApiNodes::describe() const {
  absl::MutexLock lock(&mutex_);
  const auto virtual_nodes = std::count_if(
      nodes_.begin(), nodes_.end(), [](const auto& entry) { return entry.second.virtual_node; });
  return absl::StrCat("Nodes (", nodes_.size(), ", ", virtual_nodes, " Liqo virtual)",
                      failure_.empty() ? "" : absl::StrCat("; the API: ", failure_));
}

absl::Status ApiNodes::OnListItem(const kube::JsonField& item) {
  kube::KubeNode node;
  if (absl::Status read = kube::ReadNode(item, node); !read.ok()) return read;
  std::string name = node.name;
  listing_[std::move(name)] = std::move(node);
  return absl::OkStatus();
}

void ApiNodes::OnListed(const std::string&, int) {
  {
    absl::MutexLock lock(&mutex_);
    nodes_ = std::move(listing_);
    listing_.clear();
  }
  if (!first_list_.HasBeenNotified()) first_list_.Notify();
}

bool ApiNodes::WaitForFirstList(absl::Duration timeout) const {
  return first_list_.WaitForNotificationWithTimeout(timeout);
}

absl::Status ApiNodes::OnEvent(kube::WatchEventType type, const kube::JsonField& object) {
  kube::KubeNode node;
  if (absl::Status read = kube::ReadNode(object, node); !read.ok()) return read;
  absl::MutexLock lock(&mutex_);
  if (type == kube::WatchEventType::kDeleted) {
    nodes_.erase(node.name);
  } else {
    std::string name = node.name;
    nodes_[std::move(name)] = std::move(node);
  }
  return absl::OkStatus();
}

void ApiNodes::OnFailure(const std::string& what) {
  absl::MutexLock lock(&mutex_);
  failure_ = what;
}

void ApiNodes::OnRecovered() {
  absl::MutexLock lock(&mutex_);
  failure_.clear();
}

}  // namespace carbonroute::model_sources
