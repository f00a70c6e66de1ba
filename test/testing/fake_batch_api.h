// File: test/testing/fake_batch_api.h
//
// An in-memory Kubernetes API for the hold controller's tests: Jobs
// (batch/v1), Pods (core/v1) and Leases (coordination.k8s.io/v1), with the
// rules of the real API server that the controller depends on:
//   - lists across namespaces with an equality-based label selector
//     (k=v, k==v, k!=v, k, !k; comma-separated, all must hold), paginated
//     with limit/continue (ExpireContinueTokens: the next continued page
//     answers 410 Gone, as an expired token does); GET of one Job or Pod
//     (404 when there is none);
//   - PATCH with application/merge-patch+json (RFC 7386) or
//     application/json-patch+json (RFC 6902; a failed `test` answers 422);
//     a Pod's scheduling gates may only be removed (adding one answers 422,
//     as the real server's validation does); an unknown object answers 404;
//   - Leases: GET, POST (409 if it exists), PUT with optimistic concurrency
//     (a stale metadata.resourceVersion answers 409);
//   - Events: POST stores them (events());
//   - served resources (ServeResource: the Karmada controller's policies,
//     PropagationPolicies, Clusters; ConfigMaps, group "v1") under
//     /apis/GROUP/VERSION/ or /api/v1/ [namespaces/NS/]PLURAL[/NAME[/status]]:
//     lists (cluster-wide or a namespace's), POST (409 if the name is taken),
//     GET, DELETE, merge or JSON PATCH, PUT with optimistic concurrency; an
//     object with `immutable: true` refuses a change of its data or
//     binaryData (422, as for ConfigMaps); with a status subresource, as the real server
//     does it for CRDs, writes to the object keep its status and writes to
//     /status change only the status; metadata.generation grows with every
//     change of the spec;
//   - every write bumps the object's resourceVersion, and is a watch event
//     (ADDED, MODIFIED, DELETED) for FakeKubeApiServer's watch streams.
// Usable in process (as a net::HttpClient: any base URL) or behind
// FakeKubeApiServer (Handle()).
//
// Thread safety: all methods lock; safe from any thread.
#ifndef CARBONROUTE_TEST_TESTING_FAKE_BATCH_API_H_
#define CARBONROUTE_TEST_TESTING_FAKE_BATCH_API_H_

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "net/http_client.h"

namespace carbonroute::testing {

struct FakeApiCall {
  std::string method;
  std::string target;  // path and query
  std::string content_type;
  std::string body;
  absl::Time at;  // the `now` function's time when it arrived
};

class FakeBatchApi final : public net::HttpClient {
 public:
  // `now`: the time recorded with each call (a FakeClock's, or the real one).
  explicit FakeBatchApi(std::function<absl::Time()> now) : now_(std::move(now)) {}

  // Adds an object; `labels` default to carbonroute.io/defer=true.
  void AddJob(const std::string& ns, const std::string& name, absl::Time created,
              const std::map<std::string, std::string>& annotations, bool suspend = true,
              const std::map<std::string, std::string>& labels = {{"carbonroute.io/defer", "true"}},
              const std::map<std::string, std::string>& node_selector = {});
  void AddPod(const std::string& ns, const std::string& name, absl::Time created,
              const std::map<std::string, std::string>& annotations,
              const std::vector<std::string>& gates = {"carbonroute.io/clean-window"},
              const std::map<std::string, std::string>& labels = {
                  {"carbonroute.io/defer", "true"}});
  // Sets a Pod's status.phase and status.podIP (and adds annotations): MODIFIED.
  void SetPodStatus(const std::string& ns, const std::string& name, const std::string& phase,
                    const std::string& pod_ip,
                    const std::map<std::string, std::string>& annotations = {});
  // Merges `merge_patch` (RFC 7386) into a stored object, as the cluster would
  // change it (a Job's status, what it requests): MODIFIED.
  void Update(const std::string& resource, const std::string& ns, const std::string& name,
              const nlohmann::json& merge_patch);
  void Delete(const std::string& resource, const std::string& ns, const std::string& name);
  // Serves PLURAL of GROUP/VERSION ("policy.karmada.io/v1alpha1"; "v1" for the core group) as
  // above; `namespaced` false for cluster-scoped kinds (their objects' ns is "").
  void ServeResource(const std::string& group_version, const std::string& plural, bool namespaced,
                     bool status_subresource = true);
  // Adds or replaces an object of a served resource (its metadata.name and,
  // when namespaced, metadata.namespace): ADDED or MODIFIED.
  void PutObject(const std::string& plural, nlohmann::json object);
  // The collection a watch request's path names: {resource, namespace ("" for
  // all)}, or nullopt when this API has no such collection.
  std::optional<std::pair<std::string, std::string>> WatchedCollection(
      const std::string& path) const;
  // The stored object ("jobs", "pods" or "leases"), or null.
  nlohmann::json Get(const std::string& resource, const std::string& ns,
                     const std::string& name) const;
  void ExpireContinueTokens(int count);
  // The Events created (POST /api/v1/namespaces/NS/events), in order.
  std::vector<nlohmann::json> events() const;
  std::vector<FakeApiCall> calls() const;

  // Watch events of `resource` ("jobs", "pods") whose object's resourceVersion
  // is above `after`, each a watch line ({"type", "object"}); waits up to
  // `timeout` for the first. Label selectors are applied by the caller's query.
  std::vector<std::string> EventsAfter(const std::string& resource, int64_t after,
                                       const std::string& selector, absl::Duration timeout,
                                       const std::string& ns = "");

  // The API: status and body for one request.
  std::pair<int, std::string> Handle(const std::string& method, const std::string& target,
                                     const std::string& content_type, const std::string& body);
  absl::StatusOr<net::HttpResponse> Send(const net::HttpRequest& request) override;

 private:
  std::pair<int, std::string> List(const std::string& resource, const std::string& query,
                                   const std::string& ns = "")
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  std::pair<int, std::string> Patch(const std::string& key, const std::string& content_type,
                                    const std::string& body) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  std::string NextVersion() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  struct Served {
    std::string group_version, plural;
    bool namespaced = true, status_subresource = true;
  };
  // A path under a served resource: the resource, its namespace, the
  // object's name ("" for the collection), and whether /status follows.
  struct ResourcePath {
    const Served* served = nullptr;
    std::string ns, name;
    bool status = false;
  };
  std::optional<ResourcePath> ParseResourcePath(const std::string& path) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // POST to a served collection: 201, or 409 when the name is taken.
  std::pair<int, std::string> Create(const Served& served, const std::string& ns,
                                     const std::string& body) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  std::pair<int, std::string> HandleResource(const ResourcePath& at, const std::string& method,
                                             const std::string& query,
                                             const std::string& content_type,
                                             const std::string& body)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Stores `updated` as the object at `key` (a write through the object or
  // its status), keeping what the subresource rule keeps, bumping versions.
  std::pair<int, std::string> Store(const std::string& key, const Served& served,
                                    nlohmann::json updated, bool status_write)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  std::vector<Served> served_ ABSL_GUARDED_BY(mutex_);

  const std::function<absl::Time()> now_;
  mutable absl::Mutex mutex_;
  std::map<std::string, nlohmann::json> objects_
      ABSL_GUARDED_BY(mutex_);  // "jobs/ns/name" → object
  int64_t version_ ABSL_GUARDED_BY(mutex_) = 100;
  int expire_tokens_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<FakeApiCall> calls_ ABSL_GUARDED_BY(mutex_);
  std::vector<nlohmann::json> created_events_ ABSL_GUARDED_BY(mutex_);
  struct Event {
    std::string resource;
    int64_t version;
    nlohmann::json line;
  };
  void Record(const std::string& key, const char* type) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  std::vector<Event> events_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_FAKE_BATCH_API_H_
