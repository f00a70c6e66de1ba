#include "discovery/node_discovery.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "discovery/kube_api_json.h"
#include "net/url.h"

namespace carbonroute::discovery {

kube::KubeOptions KubeOptionsFrom(const KubernetesDiscoveryConfig& config) {
  return {.api_url = config.api_url,
          .token_file = config.token_file,
          .ca_file = config.ca_file,
          .kubeconfig = config.kubeconfig,
          .context = config.context,
          .how_to_configure =
              "set kubeconfig (a kubeconfig file) or api_url (e.g. \"http://127.0.0.1:8001\" "
              "for kubectl proxy)",
          .api_url_name = "rtt.discovery.kubernetes.api_url",
          .kubeconfig_name = "rtt.discovery.kubernetes.kubeconfig"};
}

NodeDiscoveryOptions DiscoveryOptionsFrom(const KubernetesDiscoveryConfig& config,
                                          kube::KubeConnection connection, std::string self_name) {
  NodeDiscoveryOptions options;
  options.connection = std::move(connection);
  options.self_name = std::move(self_name);
  options.list_watch.label_selector = config.label_selector;
  options.list_watch.page_size = config.page_size;
  options.list_watch.watch_timeout = config.watch_timeout;
  options.list_watch.request_timeout = config.request_timeout;
  options.list_watch.backoff_initial = config.backoff_initial;
  options.list_watch.backoff_max = config.backoff_max;
  return options;
}

namespace {

kube::ListWatchOptions ListWatchOptionsFrom(const NodeDiscoveryOptions& options) {
  kube::ListWatchOptions list_watch = options.list_watch;
  list_watch.path = "/api/v1/nodes";
  list_watch.list_kind = "NodeList";
  return list_watch;
}

}  // namespace

NodeDiscovery::NodeDiscovery(NodeDiscoveryOptions options, net::HttpClient& http, Clock& clock,
                             Listener listener)
    : options_(std::move(options)),
      client_(options_.connection, http),
      clock_(clock),
      listener_(std::move(listener)),
      list_watch_(ListWatchOptionsFrom(options_), client_, clock, *this) {}

NodeDiscoveryStats NodeDiscovery::stats() const {
  NodeDiscoveryStats stats;
  static_cast<kube::ListWatchStats&>(stats) = list_watch_.stats();
  absl::MutexLock lock(&mutex_);
  stats.notifications = notifications_;
  return stats;
}

void NodeDiscovery::OnFailure(const std::string& what) {
  if (what != last_failure_) {
    spdlog::warn("kubernetes discovery: {}; keeping the {} Nodes known", what, nodes_.size());
    last_failure_ = what;
  }
}

void NodeDiscovery::OnRecovered() { last_failure_.clear(); }

void NodeDiscovery::Notify() {
  std::vector<kube::KubeNode> nodes;
  nodes.reserve(nodes_.size());
  for (const auto& [name, node] : nodes_) nodes.push_back(node);
  {
    absl::MutexLock lock(&mutex_);
    ++notifications_;
  }
  changed_ = false;
  listener_(nodes, self_);
}

void NodeDiscovery::OnListStart() {
  listing_.clear();
  list_started_ = clock_.Now();
}

absl::Status NodeDiscovery::OnListItem(const kube::JsonField& item) {
  kube::KubeNode node;
  if (absl::Status status = ReadNode(item, node); !status.ok()) return status;
  std::string name = node.name;
  listing_.insert_or_assign(std::move(name), std::move(node));
  return absl::OkStatus();
}

void NodeDiscovery::OnListed(const std::string& resource_version, int pages) {
  nodes_ = std::move(listing_);
  listing_.clear();
  if (auto self = nodes_.find(options_.self_name); self != nodes_.end()) self_ = self->second;
  spdlog::info("kubernetes discovery: listed {} Nodes in {} page(s) in {} (resourceVersion {})",
               nodes_.size(), pages, absl::FormatDuration(clock_.Now() - list_started_),
               resource_version);
  FetchSelfIfMissing();
  Notify();
}

absl::Status NodeDiscovery::OnEvent(kube::WatchEventType type, const kube::JsonField& object) {
  kube::KubeNode node;
  if (absl::Status status = ReadNode(object, node); !status.ok()) return status;
  if (type == kube::WatchEventType::kDeleted) {
    changed_ = nodes_.erase(node.name) > 0 || changed_;
    return absl::OkStatus();
  }
  if (node.name == options_.self_name) self_ = node;
  auto it = nodes_.find(node.name);
  if (it == nodes_.end()) {
    std::string name = node.name;
    nodes_.emplace(std::move(name), std::move(node));
    changed_ = true;
  } else if (!(it->second == node)) {  // a status heartbeat changes nothing read here
    it->second = std::move(node);
    changed_ = true;
  }
  return absl::OkStatus();
}

void NodeDiscovery::OnEventsApplied() {
  if (changed_) Notify();
}

void NodeDiscovery::FetchSelfIfMissing() {
  if (self_ || options_.self_name.empty()) return;
  const std::string path = absl::StrCat("/api/v1/nodes/", net::UrlEncode(options_.self_name));
  absl::StatusOr<net::HttpResponse> response =
      client_.Call({.method = "GET",
                    .path = path,
                    .timeout = options_.list_watch.request_timeout,
                    .cancelled = [this] { return stop_ != nullptr && stop_->HasBeenNotified(); }});
  if (!response.ok() || response->status != 200) {
    spdlog::warn("kubernetes discovery: cannot read this collector's Node \"{}\": {}",
                 options_.self_name,
                 response.ok() ? std::string(kube::ApiError("GET", path, *response).message())
                               : response.status().ToString());
    return;
  }
  absl::StatusOr<kube::KubeNode> node = ParseNode(response->body);
  if (!node.ok()) {
    spdlog::warn("kubernetes discovery: this collector's Node: {}", node.status().ToString());
    return;
  }
  self_ = *std::move(node);
}

void NodeDiscovery::Run(absl::Notification& stop) {
  stop_ = &stop;
  list_watch_.Run(stop);
}

}  // namespace carbonroute::discovery
