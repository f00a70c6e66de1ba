#include "test/testing/fake_batch_api.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/utc_time.h"
#include "net/url.h"

namespace carbonroute::testing {
namespace {

using Json = nlohmann::json;

std::pair<int, std::string> StatusBody(int code, const std::string& reason,
                                       const std::string& message) {
  return {code, Json{{"kind", "Status"},
                     {"apiVersion", "v1"},
                     {"status", "Failure"},
                     {"reason", reason},
                     {"message", message},
                     {"code", code}}
                    .dump()};
}

Json StringMap(const std::map<std::string, std::string>& map) {
  Json out = Json::object();
  for (const auto& [k, v] : map) out[k] = v;
  return out;
}

// Equality-based selectors
// (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/).
bool Selects(const std::string& selector, const Json& labels) {
  for (absl::string_view term : absl::StrSplit(selector, ',', absl::SkipEmpty())) {
    term = absl::StripAsciiWhitespace(term);
    auto value_of = [&](absl::string_view key) -> std::optional<std::string> {
      if (!labels.is_object() || !labels.contains(std::string(key))) return std::nullopt;
      return labels[std::string(key)].get<std::string>();
    };
    if (const std::size_t ne = term.find("!="); ne != absl::string_view::npos) {
      if (value_of(term.substr(0, ne)) == std::string(term.substr(ne + 2))) return false;
    } else if (const std::size_t eq = term.find('='); eq != absl::string_view::npos) {
      absl::string_view value = term.substr(eq + 1);
      absl::ConsumePrefix(&value, "=");
      if (value_of(term.substr(0, eq)) != std::string(value)) return false;
    } else if (absl::ConsumePrefix(&term, "!")) {
      if (value_of(term)) return false;
    } else if (!value_of(term)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string FakeBatchApi::NextVersion() { return absl::StrCat(++version_); }

void FakeBatchApi::Record(const std::string& key, const char* type) {
  const Json& object = objects_.at(key);
  events_.push_back(
      {key.substr(0, key.find('/')), version_, Json{{"type", type}, {"object", object}}});
}

std::vector<std::string> FakeBatchApi::EventsAfter(const std::string& resource, int64_t after,
                                                   const std::string& selector,
                                                   absl::Duration timeout, const std::string& ns) {
  absl::MutexLock lock(&mutex_);
  auto any = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    for (const Event& event : events_) {
      if (event.resource == resource && event.version > after) return true;
    }
    return false;
  };
  mutex_.AwaitWithTimeout(absl::Condition(&any), timeout);
  std::vector<std::string> lines;
  for (const Event& event : events_) {
    if (event.resource == resource && event.version > after &&
        Selects(selector, event.line["object"]["metadata"]["labels"]) &&
        (ns.empty() || event.line["object"]["metadata"].value("namespace", "") == ns)) {
      lines.push_back(event.line.dump());
    }
  }
  return lines;
}

void FakeBatchApi::AddJob(const std::string& ns, const std::string& name, absl::Time created,
                          const std::map<std::string, std::string>& annotations, bool suspend,
                          const std::map<std::string, std::string>& labels,
                          const std::map<std::string, std::string>& node_selector) {
  absl::MutexLock lock(&mutex_);
  Json job = {{"apiVersion", "batch/v1"}, {"kind", "Job"}};
  job["metadata"] = {{"name", name},
                     {"namespace", ns},
                     {"uid", absl::StrCat("uid-job-", ns, "-", name)},
                     {"resourceVersion", NextVersion()},
                     {"creationTimestamp", UtcSeconds(created)},
                     {"labels", StringMap(labels)}};
  job["spec"]["suspend"] = suspend;
  job["spec"]["template"]["spec"]["restartPolicy"] = "Never";
  job["spec"]["template"]["spec"]["containers"] =
      Json::array({Json{{"name", "work"}, {"image", "busybox"}}});
  if (!annotations.empty()) job["metadata"]["annotations"] = StringMap(annotations);
  if (!node_selector.empty()) {
    job["spec"]["template"]["spec"]["nodeSelector"] = StringMap(node_selector);
  }
  const std::string key = absl::StrCat("jobs/", ns, "/", name);
  objects_[key] = std::move(job);
  Record(key, "ADDED");
}

void FakeBatchApi::AddPod(const std::string& ns, const std::string& name, absl::Time created,
                          const std::map<std::string, std::string>& annotations,
                          const std::vector<std::string>& gates,
                          const std::map<std::string, std::string>& labels) {
  absl::MutexLock lock(&mutex_);
  Json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  pod["metadata"] = {{"name", name},
                     {"namespace", ns},
                     {"uid", absl::StrCat("uid-pod-", ns, "-", name)},
                     {"resourceVersion", NextVersion()},
                     {"creationTimestamp", UtcSeconds(created)},
                     {"labels", StringMap(labels)}};
  pod["spec"]["containers"] = Json::array({Json{{"name", "work"}, {"image", "busybox"}}});
  if (!annotations.empty()) pod["metadata"]["annotations"] = StringMap(annotations);
  if (!gates.empty()) {
    Json list = Json::array();
    for (const std::string& gate : gates) list.push_back({{"name", gate}});
    pod["spec"]["schedulingGates"] = list;
  }
  const std::string key = absl::StrCat("pods/", ns, "/", name);
  objects_[key] = std::move(pod);
  Record(key, "ADDED");
}

void FakeBatchApi::SetPodStatus(const std::string& ns, const std::string& name,
                                const std::string& phase, const std::string& pod_ip,
                                const std::map<std::string, std::string>& annotations) {
  absl::MutexLock lock(&mutex_);
  const std::string key = absl::StrCat("pods/", ns, "/", name);
  if (!objects_.contains(key)) return;
  Json& pod = objects_[key];
  pod["status"] = {{"phase", phase}};
  if (!pod_ip.empty()) pod["status"]["podIP"] = pod_ip;
  for (const auto& [k, v] : annotations) pod["metadata"]["annotations"][k] = v;
  pod["metadata"]["resourceVersion"] = NextVersion();
  Record(key, "MODIFIED");
}

void FakeBatchApi::Update(const std::string& resource, const std::string& ns,
                          const std::string& name, const nlohmann::json& merge_patch) {
  absl::MutexLock lock(&mutex_);
  const std::string key = absl::StrCat(resource, "/", ns, "/", name);
  if (!objects_.contains(key)) return;
  objects_[key].merge_patch(merge_patch);
  objects_[key]["metadata"]["resourceVersion"] = NextVersion();
  Record(key, "MODIFIED");
}

void FakeBatchApi::Delete(const std::string& resource, const std::string& ns,
                          const std::string& name) {
  absl::MutexLock lock(&mutex_);
  const std::string key = absl::StrCat(resource, "/", ns, "/", name);
  if (!objects_.contains(key)) return;
  objects_[key]["metadata"]["resourceVersion"] = NextVersion();
  Record(key, "DELETED");
  objects_.erase(key);
}

Json FakeBatchApi::Get(const std::string& resource, const std::string& ns,
                       const std::string& name) const {
  absl::MutexLock lock(&mutex_);
  const auto it = objects_.find(absl::StrCat(resource, "/", ns, "/", name));
  return it == objects_.end() ? Json() : it->second;
}

void FakeBatchApi::ExpireContinueTokens(int count) {
  absl::MutexLock lock(&mutex_);
  expire_tokens_ = count;
}

std::vector<nlohmann::json> FakeBatchApi::events() const {
  absl::MutexLock lock(&mutex_);
  return created_events_;
}

std::vector<FakeApiCall> FakeBatchApi::calls() const {
  absl::MutexLock lock(&mutex_);
  return calls_;
}

std::pair<int, std::string> FakeBatchApi::List(const std::string& resource,
                                               const std::string& query, const std::string& ns) {
  const std::string selector = net::QueryParameter(query, "labelSelector").value_or("");
  std::size_t limit = 0, offset = 0;
  if (!absl::SimpleAtoi(net::QueryParameter(query, "limit").value_or(""), &limit)) limit = 0;
  if (const std::optional<std::string> token = net::QueryParameter(query, "continue")) {
    if (expire_tokens_ > 0) {
      --expire_tokens_;
      return StatusBody(410, "Expired", "The provided continue parameter is too old");
    }
    if (!absl::SimpleAtoi(*token, &offset)) return StatusBody(400, "BadRequest", "bad continue");
  }
  std::vector<const Json*> matching;
  for (const auto& [key, object] : objects_) {
    if (absl::StartsWith(key, resource + "/") && Selects(selector, object["metadata"]["labels"]) &&
        (ns.empty() || object["metadata"].value("namespace", "") == ns)) {
      matching.push_back(&object);
    }
  }
  const std::size_t end = limit == 0 ? matching.size() : std::min(matching.size(), offset + limit);
  Json items = Json::array();
  for (std::size_t i = std::min(offset, end); i < end; ++i) items.push_back(*matching[i]);
  Json list = {{"kind", resource == "jobs"   ? "JobList"
                        : resource == "pods" ? "PodList"
                                             : "List"},
               {"metadata",
                {{"resourceVersion", absl::StrCat(version_)},
                 {"continue", end < matching.size() ? absl::StrCat(end) : ""}}},
               {"items", items}};
  return {200, list.dump()};
}

namespace {

// `before` with `body` applied as a `content_type` patch into `patched`; an
// error answer when the patch cannot apply.
std::optional<std::pair<int, std::string>> ApplyPatch(const Json& before,
                                                      const std::string& content_type,
                                                      const std::string& body, Json& patched) {
  const Json patch = Json::parse(body, nullptr, false);
  if (patch.is_discarded()) return StatusBody(400, "BadRequest", "the patch is not JSON");
  if (content_type == "application/merge-patch+json") {
    patched = before;
    patched.merge_patch(patch);
  } else if (content_type == "application/json-patch+json") {
    try {
      patched = before.patch(patch);
    } catch (const Json::exception& e) {
      return StatusBody(422, "Invalid", std::string("the JSON patch failed: ") + e.what());
    }
  } else {
    // The real server refuses strategic merge patches for custom resources the same way.
    return StatusBody(415, "UnsupportedMediaType", "content type " + content_type);
  }
  return std::nullopt;
}

}  // namespace

std::pair<int, std::string> FakeBatchApi::Patch(const std::string& key,
                                                const std::string& content_type,
                                                const std::string& body) {
  const auto it = objects_.find(key);
  if (it == objects_.end()) return StatusBody(404, "NotFound", key + " not found");
  Json patched;
  if (auto refused = ApplyPatch(it->second, content_type, body, patched)) return *refused;
  if (absl::StartsWith(key, "pods/")) {  // gates can only be removed
    const Json none = Json::array();
    const Json& before = it->second["spec"].value("schedulingGates", none);
    const Json& after = patched["spec"].value("schedulingGates", none);
    for (const Json& gate : after) {
      if (std::find(before.begin(), before.end(), gate) == before.end()) {
        return StatusBody(422, "Invalid",
                          "spec.schedulingGates: Forbidden: only deletion is allowed");
      }
    }
  }
  patched["metadata"]["resourceVersion"] = NextVersion();
  it->second = std::move(patched);
  Record(key, "MODIFIED");
  return {200, it->second.dump()};
}

void FakeBatchApi::ServeResource(const std::string& group_version, const std::string& plural,
                                 bool namespaced, bool status_subresource) {
  absl::MutexLock lock(&mutex_);
  served_.push_back({group_version, plural, namespaced, status_subresource});
}

void FakeBatchApi::PutObject(const std::string& plural, Json object) {
  absl::MutexLock lock(&mutex_);
  Json& metadata = object["metadata"];
  const std::string key =
      absl::StrCat(plural, "/", metadata.value("namespace", ""), "/", metadata.value("name", ""));
  const bool exists = objects_.contains(key);
  metadata["resourceVersion"] = NextVersion();
  if (!metadata.contains("uid")) metadata["uid"] = absl::StrCat("uid-", key);
  const int64_t generation =
      exists ? objects_[key]["metadata"].value("generation", int64_t{1}) : int64_t{0};
  metadata["generation"] =
      exists && objects_[key].value("spec", Json()) == object.value("spec", Json())
          ? generation
          : generation + 1;
  objects_[key] = std::move(object);
  Record(key, exists ? "MODIFIED" : "ADDED");
}

std::optional<FakeBatchApi::ResourcePath> FakeBatchApi::ParseResourcePath(
    const std::string& path) const {
  std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  // The core group is /api/VERSION (group_version "v1"), the others /apis/GROUP/VERSION.
  const bool core = !parts.empty() && parts[0] == "api";
  if (parts.size() < (core ? 3u : 4u) || (!core && parts[0] != "apis")) return std::nullopt;
  const std::string group_version = core ? parts[1] : absl::StrCat(parts[1], "/", parts[2]);
  ResourcePath at;
  const std::size_t first = core ? 2 : 3;
  std::size_t next = first;
  if (parts[first] == "namespaces" && parts.size() >= first + 3) {
    at.ns = parts[first + 1];
    next = first + 2;
  }
  for (const Served& served : served_) {
    if (served.group_version == group_version && served.plural == parts[next] &&
        served.namespaced == (next == first + 2 || (served.namespaced && next == first))) {
      at.served = &served;
    }
  }
  if (at.served == nullptr) return std::nullopt;
  if (parts.size() > next + 1) at.name = parts[next + 1];
  if (parts.size() > next + 2) {
    if (parts[next + 2] != "status" || parts.size() > next + 3) return std::nullopt;
    at.status = true;
  }
  return at;
}

std::optional<std::pair<std::string, std::string>> FakeBatchApi::WatchedCollection(
    const std::string& path) const {
  if (path == "/apis/batch/v1/jobs") return std::make_pair("jobs", "");
  if (path == "/api/v1/pods") return std::make_pair("pods", "");
  // A namespace's Pods: /api/v1/namespaces/NS/pods.
  if (absl::StartsWith(path, "/api/v1/namespaces/") && absl::EndsWith(path, "/pods")) {
    return std::make_pair("pods", path.substr(19, path.size() - 19 - 5));
  }
  absl::MutexLock lock(&mutex_);
  const std::optional<ResourcePath> at = ParseResourcePath(path);
  if (!at || !at->name.empty()) return std::nullopt;
  return std::make_pair(at->served->plural, at->ns);
}

std::pair<int, std::string> FakeBatchApi::Store(const std::string& key, const Served& served,
                                                Json updated, bool status_write) {
  Json& stored = objects_.at(key);
  if (served.status_subresource) {
    if (status_write) {
      Json status = updated.value("status", Json());
      updated = stored;
      updated["status"] = std::move(status);
    } else if (stored.contains("status")) {
      updated["status"] = stored["status"];
    } else {
      updated.erase("status");
    }
  }
  int64_t generation = stored["metadata"].value("generation", int64_t{1});
  if (updated.value("spec", Json()) != stored.value("spec", Json())) ++generation;
  updated["metadata"]["generation"] = generation;
  updated["metadata"]["uid"] = stored["metadata"]["uid"];
  updated["metadata"]["resourceVersion"] = NextVersion();
  stored = std::move(updated);
  Record(key, "MODIFIED");
  return {200, stored.dump()};
}

std::pair<int, std::string> FakeBatchApi::Create(const Served& served, const std::string& ns,
                                                 const std::string& body) {
  Json object = Json::parse(body, nullptr, false);
  if (object.is_discarded() || !object.is_object())
    return StatusBody(400, "BadRequest", "not JSON");
  const std::string name = object["metadata"].value("name", "");
  if (name.empty()) return StatusBody(422, "Invalid", "metadata.name: Required value");
  const std::string key = absl::StrCat(served.plural, "/", ns, "/", name);
  if (objects_.contains(key)) {
    return StatusBody(409, "AlreadyExists",
                      absl::StrCat(served.plural, " \"", name, "\" already exists"));
  }
  if (served.namespaced) object["metadata"]["namespace"] = ns;
  object["metadata"]["resourceVersion"] = NextVersion();
  object["metadata"]["uid"] = absl::StrCat("uid-", key);
  object["metadata"]["generation"] = 1;
  objects_[key] = object;
  Record(key, "ADDED");
  return {201, object.dump()};
}

std::pair<int, std::string> FakeBatchApi::HandleResource(const ResourcePath& at,
                                                         const std::string& method,
                                                         const std::string& query,
                                                         const std::string& content_type,
                                                         const std::string& body) {
  const Served& served = *at.served;
  if (at.name.empty()) {
    if (method == "GET") return List(served.plural, query, at.ns);
    if (method == "POST") return Create(served, at.ns, body);
    return StatusBody(405, "MethodNotAllowed", method + " on a collection");
  }
  const std::string key = absl::StrCat(served.plural, "/", at.ns, "/", at.name);
  const auto it = objects_.find(key);
  if (it == objects_.end()) {
    return StatusBody(
        404, "NotFound",
        absl::StrCat(served.plural, ".", served.group_version, " \"", at.name, "\" not found"));
  }
  if (at.status && !served.status_subresource) return StatusBody(404, "NotFound", "no status");
  if (method == "GET") return {200, it->second.dump()};
  if (method == "DELETE") {
    it->second["metadata"]["resourceVersion"] = NextVersion();
    Record(key, "DELETED");
    Json deleted = std::move(it->second);
    objects_.erase(key);
    return {200, deleted.dump()};
  }
  Json updated;
  if (method == "PATCH") {
    if (auto refused = ApplyPatch(it->second, content_type, body, updated)) return *refused;
  } else if (method == "PUT") {
    updated = Json::parse(body, nullptr, false);
    if (updated.is_discarded() || !updated.is_object()) {
      return StatusBody(400, "BadRequest", "not JSON");
    }
    if (updated["metadata"].value("resourceVersion", "") !=
        it->second["metadata"].value("resourceVersion", "")) {
      return StatusBody(409, "Conflict", "the object has been modified");
    }
  } else {
    return StatusBody(405, "MethodNotAllowed", method);
  }
  // An immutable ConfigMap or Secret: its data cannot change (the real server's validation).
  if (it->second.value("immutable", false) &&
      (updated.value("data", Json()) != it->second.value("data", Json()) ||
       updated.value("binaryData", Json()) != it->second.value("binaryData", Json()))) {
    return StatusBody(422, "Invalid",
                      absl::StrCat(served.plural, " \"", at.name,
                                   "\" is invalid: data: Forbidden: field is immutable when "
                                   "`immutable` is set"));
  }
  return Store(key, served, std::move(updated), at.status);
}

std::pair<int, std::string> FakeBatchApi::Handle(const std::string& method,
                                                 const std::string& target,
                                                 const std::string& content_type,
                                                 const std::string& body) {
  absl::MutexLock lock(&mutex_);
  calls_.push_back({method, target, content_type, body, now_()});
  const std::size_t question = target.find('?');
  const std::string path = target.substr(0, question);
  const std::string query = question == std::string::npos ? "" : target.substr(question + 1);
  if (const std::optional<ResourcePath> at = ParseResourcePath(path)) {
    return HandleResource(*at, method, query, content_type, body);
  }
  if (method == "GET" && path == "/apis/batch/v1/jobs") return List("jobs", query);
  if (method == "GET" && path == "/api/v1/pods") return List("pods", query);
  // /apis/batch/v1/namespaces/NS/jobs/NAME, /api/v1/namespaces/NS/pods/NAME,
  // /apis/coordination.k8s.io/v1/namespaces/NS/leases[/NAME]
  std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  const auto ns_at = std::find(parts.begin(), parts.end(), "namespaces");
  if (ns_at == parts.end() || parts.end() - ns_at < 3) {
    return StatusBody(404, "NotFound", path + " not found");
  }
  const std::string ns = *(ns_at + 1), resource = *(ns_at + 2);
  const std::string name = parts.end() - ns_at >= 4 ? *(ns_at + 3) : "";
  const std::string key = absl::StrCat(resource, "/", ns, "/", name);
  if (method == "GET" && name.empty() && (resource == "jobs" || resource == "pods")) {
    return List(resource, query, ns);  // a namespace's collection
  }
  if (method == "PATCH" && (resource == "jobs" || resource == "pods")) {
    return Patch(key, content_type, body);
  }
  if (method == "GET" && (resource == "jobs" || resource == "pods")) {  // one object
    const auto it = objects_.find(key);
    if (it == objects_.end())
      return StatusBody(404, "NotFound", resource + " " + name + " not found");
    return {200, it->second.dump()};
  }
  if (method == "POST" && resource == "events" && name.empty()) {
    Json event = Json::parse(body, nullptr, false);
    if (event.is_discarded() || !event.is_object() || !event.contains("involvedObject")) {
      return StatusBody(422, "Invalid", "not an Event");
    }
    event["metadata"]["name"] =
        absl::StrCat(event["metadata"].value("generateName", ""), created_events_.size());
    created_events_.push_back(event);
    return {201, event.dump()};
  }
  if (resource != "leases") return StatusBody(405, "MethodNotAllowed", method + " " + path);
  if (method == "GET") {
    const auto it = objects_.find(key);
    if (it == objects_.end()) return StatusBody(404, "NotFound", "lease " + name + " not found");
    return {200, it->second.dump()};
  }
  Json lease = Json::parse(body, nullptr, false);
  if (lease.is_discarded() || !lease.is_object()) return StatusBody(400, "BadRequest", "not JSON");
  if (method == "POST") {
    const std::string created =
        absl::StrCat("leases/", ns, "/", lease["metadata"].value("name", ""));
    if (objects_.contains(created)) return StatusBody(409, "AlreadyExists", "lease exists");
    lease["metadata"]["resourceVersion"] = NextVersion();
    objects_[created] = lease;
    return {201, lease.dump()};
  }
  if (method == "PUT") {
    const auto it = objects_.find(key);
    if (it == objects_.end()) return StatusBody(404, "NotFound", "lease " + name + " not found");
    if (lease["metadata"].value("resourceVersion", "") !=
        it->second["metadata"].value("resourceVersion", "")) {
      return StatusBody(409, "Conflict", "the object has been modified");
    }
    lease["metadata"]["resourceVersion"] = NextVersion();
    it->second = lease;
    return {200, lease.dump()};
  }
  return StatusBody(405, "MethodNotAllowed", method + " " + path);
}

absl::StatusOr<net::HttpResponse> FakeBatchApi::Send(const net::HttpRequest& request) {
  // The target: what follows the URL's authority.
  absl::string_view url = request.url;
  const std::size_t scheme = url.find("://");
  if (scheme != absl::string_view::npos) url.remove_prefix(scheme + 3);
  const std::size_t slash = url.find('/');
  const std::string target(slash == absl::string_view::npos ? "/" : url.substr(slash));
  std::string content_type;
  for (const auto& [name, value] : request.headers) {
    if (absl::EqualsIgnoreCase(name, "Content-Type")) content_type = value;
  }
  auto [status, body] = Handle(request.method, target, content_type, request.body);
  net::HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

}  // namespace carbonroute::testing
