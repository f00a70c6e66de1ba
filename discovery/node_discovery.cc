#include "discovery/node_discovery.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "base/backoff.h"
#include "base/data_files.h"
#include "discovery/kube_api_json.h"
#include "net/url.h"

namespace carbonroute::discovery {
namespace {

constexpr int kGone = 410;  // resourceVersion too old: list again

bool IsSuccess(int status) { return status >= 200 && status <= 299; }

}  // namespace

NodeDiscoveryOptions DiscoveryOptionsFrom(const KubernetesDiscoveryConfig& config,
                                          KubeApiEndpoint endpoint, std::string self_name) {
  NodeDiscoveryOptions options;
  options.endpoint = std::move(endpoint);
  options.self_name = std::move(self_name);
  options.label_selector = config.label_selector;
  options.page_size = config.page_size;
  options.watch_timeout = config.watch_timeout;
  options.request_timeout = config.request_timeout;
  options.backoff_initial = config.backoff_initial;
  options.backoff_max = config.backoff_max;
  return options;
}

NodeDiscovery::NodeDiscovery(NodeDiscoveryOptions options, net::HttpClient& http, Clock& clock,
                             Listener listener)
    : options_(std::move(options)),
      http_(http),
      clock_(clock),
      listener_(std::move(listener)),
      random_(options_.seed.value_or(std::random_device{}())) {}

NodeDiscoveryStats NodeDiscovery::stats() const {
  absl::MutexLock lock(&mutex_);
  return stats_;
}

absl::StatusOr<net::HttpResponse> NodeDiscovery::Get(
    const std::string& path_and_query, absl::Notification& stop, absl::Duration timeout,
    std::function<bool(std::string_view)> on_body) {
  net::HttpRequest request;
  request.url = absl::StrCat(options_.endpoint.base_url, path_and_query);
  request.headers.emplace_back("Accept", "application/json");
  if (!options_.endpoint.token_file.empty()) {
    // Read before every request: projected service-account tokens rotate.
    absl::StatusOr<std::string> token =
        ReadFileToString(options_.endpoint.token_file, "service account token");
    if (!token.ok()) return token.status();
    request.headers.emplace_back("Authorization",
                                 absl::StrCat("Bearer ", absl::StripAsciiWhitespace(*token)));
  }
  request.ca_file = options_.endpoint.ca_file;
  request.timeout = timeout;
  request.connect_timeout = std::min(timeout, absl::Seconds(10));
  request.on_body = std::move(on_body);
  request.cancelled = [&stop] { return stop.HasBeenNotified(); };
  return http_.Send(request);
}

void NodeDiscovery::Failed(const std::string& what) {
  ++consecutive_failures_;
  {
    absl::MutexLock lock(&mutex_);
    ++stats_.failures;
    stats_.last_error = what;
  }
  if (what != last_failure_) {
    spdlog::warn("kubernetes discovery: {}; keeping the {} Nodes known", what, nodes_.size());
    last_failure_ = what;
  }
}

void NodeDiscovery::Succeeded() {
  consecutive_failures_ = 0;
  last_failure_.clear();
}

absl::Duration NodeDiscovery::NextBackoff() {
  return JitteredBackoff(options_.backoff_initial, options_.backoff_max,
                         std::max(consecutive_failures_, 1), random_);
}

void NodeDiscovery::Notify() {
  std::vector<KubeNode> nodes;
  nodes.reserve(nodes_.size());
  for (const auto& [name, node] : nodes_) nodes.push_back(node);
  {
    absl::MutexLock lock(&mutex_);
    ++stats_.notifications;
    stats_.resource_version = resource_version_;
  }
  listener_(nodes, self_);
}

absl::Status NodeDiscovery::List(absl::Notification& stop) {
  std::map<std::string, KubeNode, std::less<>> listed;
  std::string continue_token, resource_version;
  const absl::Time started = clock_.Now();
  int pages = 0;
  do {
    std::vector<std::pair<std::string, std::string>> query = {
        {"limit", absl::StrCat(options_.page_size)}};
    if (!continue_token.empty()) query.emplace_back("continue", continue_token);
    if (!options_.label_selector.empty())
      query.emplace_back("labelSelector", options_.label_selector);
    absl::StatusOr<net::HttpResponse> response =
        Get(absl::StrCat("/api/v1/nodes", net::Query(query)), stop, options_.request_timeout);
    if (!response.ok()) return response.status();
    if (response->status == kGone) {  // the continue token expired: start over
      continue_token.clear();
      listed.clear();
      continue;
    }
    if (!IsSuccess(response->status)) {
      return absl::UnavailableError(absl::StrCat("listing Nodes: HTTP ", response->status, ": ",
                                                 DescribeStatus(response->body)));
    }
    absl::StatusOr<NodeListPage> page = ParseNodeList(response->body);
    if (!page.ok()) return page.status();
    ++pages;
    for (KubeNode& node : page->nodes) {
      std::string name = node.name;
      listed.insert_or_assign(std::move(name), std::move(node));
    }
    continue_token = page->continue_token;
    resource_version = page->resource_version;
  } while (!continue_token.empty() && !stop.HasBeenNotified());
  if (stop.HasBeenNotified()) return absl::CancelledError("stopped");
  nodes_ = std::move(listed);
  resource_version_ = resource_version;
  if (auto self = nodes_.find(options_.self_name); self != nodes_.end()) self_ = self->second;
  {
    absl::MutexLock lock(&mutex_);
    ++stats_.lists;
    stats_.pages += pages;
  }
  spdlog::info("kubernetes discovery: listed {} Nodes in {} page(s) in {} (resourceVersion {})",
               nodes_.size(), pages, absl::FormatDuration(clock_.Now() - started),
               resource_version_);
  return absl::OkStatus();
}

void NodeDiscovery::FetchSelfIfMissing(absl::Notification& stop) {
  if (self_ || options_.self_name.empty()) return;
  absl::StatusOr<net::HttpResponse> response =
      Get(absl::StrCat("/api/v1/nodes/", net::UrlEncode(options_.self_name)), stop,
          options_.request_timeout);
  if (!response.ok() || !IsSuccess(response->status)) {
    spdlog::warn("kubernetes discovery: cannot read this collector's Node \"{}\": {}",
                 options_.self_name,
                 response.ok()
                     ? absl::StrCat("HTTP ", response->status, ": ", DescribeStatus(response->body))
                     : response.status().ToString());
    return;
  }
  absl::StatusOr<KubeNode> node = ParseNode(response->body);
  if (!node.ok()) {
    spdlog::warn("kubernetes discovery: this collector's Node: {}", node.status().ToString());
    return;
  }
  self_ = *std::move(node);
}

bool NodeDiscovery::ApplyLines(std::string& buffer, bool& relist) {
  bool changed = false;
  std::size_t start = 0;
  for (std::size_t end; (end = buffer.find('\n', start)) != std::string::npos; start = end + 1) {
    const absl::string_view line =
        absl::StripAsciiWhitespace(absl::string_view(buffer).substr(start, end - start));
    if (line.empty()) continue;
    absl::StatusOr<WatchEvent> event = ParseWatchEvent(line);
    if (!event.ok()) {
      spdlog::warn("kubernetes discovery: {}; listing again",
                   std::string(event.status().message()));
      relist = true;
      break;
    }
    {
      absl::MutexLock lock(&mutex_);
      ++stats_.events;
    }
    if (event->type == WatchEvent::Type::kError) {
      spdlog::info("kubernetes discovery: watch ERROR event (code {}: {}); listing again",
                   event->error_code, event->error_message);
      relist = true;
      break;
    }
    if (!event->resource_version.empty()) resource_version_ = event->resource_version;
    KubeNode& node = event->node;
    switch (event->type) {
      case WatchEvent::Type::kAdded:
      case WatchEvent::Type::kModified: {
        if (node.name == options_.self_name) self_ = node;
        auto it = nodes_.find(node.name);
        if (it == nodes_.end()) {
          std::string name = node.name;
          nodes_.emplace(std::move(name), std::move(node));
          changed = true;
        } else if (!(it->second == node)) {  // a status heartbeat changes nothing read here
          it->second = std::move(node);
          changed = true;
        }
        break;
      }
      case WatchEvent::Type::kDeleted:
        changed = nodes_.erase(node.name) > 0 || changed;
        break;
      case WatchEvent::Type::kBookmark:
      case WatchEvent::Type::kError:
        break;
    }
  }
  buffer.erase(0, start);
  return changed;
}

NodeDiscovery::WatchEnd NodeDiscovery::Watch(absl::Notification& stop) {
  std::vector<std::pair<std::string, std::string>> query = {
      {"watch", "true"},
      {"resourceVersion", resource_version_},
      {"allowWatchBookmarks", "true"},
      {"timeoutSeconds", absl::StrCat(absl::ToInt64Seconds(options_.watch_timeout))}};
  if (!options_.label_selector.empty())
    query.emplace_back("labelSelector", options_.label_selector);
  std::string buffer;
  bool relist = false, answered = false;
  absl::StatusOr<net::HttpResponse> response =
      Get(absl::StrCat("/api/v1/nodes", net::Query(query)), stop,
          options_.watch_timeout + options_.request_timeout, [&](std::string_view chunk) {
            if (!answered) {
              answered = true;
              absl::MutexLock lock(&mutex_);
              ++stats_.watches;
            }
            buffer.append(chunk);
            if (ApplyLines(buffer, relist)) Notify();
            return !relist;
          });
  if (stop.HasBeenNotified()) return WatchEnd::kStopped;
  if (relist) return WatchEnd::kRelist;
  if (!response.ok()) {
    Failed(absl::StrCat("watch: ", response.status().message()));
    return WatchEnd::kFailed;
  }
  if (response->status == kGone) {
    spdlog::info("kubernetes discovery: resourceVersion {} expired (HTTP 410); listing again",
                 resource_version_);
    return WatchEnd::kRelist;
  }
  if (!IsSuccess(response->status)) {
    Failed(absl::StrCat("watch: HTTP ", response->status, ": ", DescribeStatus(response->body)));
    return WatchEnd::kFailed;
  }
  if (!answered) {  // a 200 with an empty stream still counts as a watch
    absl::MutexLock lock(&mutex_);
    ++stats_.watches;
  }
  Succeeded();
  return WatchEnd::kServerEnded;
}

void NodeDiscovery::Run(absl::Notification& stop) {
  bool need_list = true;
  while (!stop.HasBeenNotified()) {
    if (need_list) {
      absl::Status listed = List(stop);
      if (stop.HasBeenNotified()) return;
      if (!listed.ok()) {
        Failed(absl::StrCat("list: ", listed.message()));
        if (clock_.WaitUntil(clock_.Now() + NextBackoff(), stop)) return;
        continue;
      }
      Succeeded();
      need_list = false;
      FetchSelfIfMissing(stop);
      Notify();
    }
    switch (Watch(stop)) {
      case WatchEnd::kStopped:
        return;
      case WatchEnd::kRelist: {
        need_list = true;
        absl::MutexLock lock(&mutex_);
        ++stats_.relists;
        break;
      }
      case WatchEnd::kServerEnded:
        break;  // resume from resource_version_ at once
      case WatchEnd::kFailed:
        if (clock_.WaitUntil(clock_.Now() + NextBackoff(), stop)) return;
        break;
    }
  }
}

}  // namespace carbonroute::discovery
