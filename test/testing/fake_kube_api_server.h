// File: test/testing/fake_kube_api_server.h
//
// A scripted Kubernetes API server for node discovery tests, on 127.0.0.1,
// port 0, in plain HTTP (as `kubectl proxy` serves) or HTTPS (a certificate
// made at test time, test_certificates.h). Raw sockets and OpenSSL, so a test
// can script what a real API server does on its own: a watch stream that
// stays open and delivers events when the test says, a 410 mid-watch, a
// connection dropped mid-stream.
//
//   GET /api/v1/nodes?limit=L[&continue=T]  the Nodes set, L per page
//   GET /api/v1/nodes/{name}                one Node, or 404
//   GET /api/v1/nodes?watch=true&...        a chunked stream of the events
//                                           the test sends, until it ends it
//   anything else                           FakeBatchApi's answer, when ServeBatchApi
//                                           gave one (the hold controller's tests);
//   GET /apis/batch/v1/jobs?watch=true&...  its events after resourceVersion, streamed
//   (and /api/v1/pods, a namespace's Pods,     until the server stops
//   and ServeResource's custom resources)

// Every connection is closed after its response.
#ifndef CARBONROUTE_TEST_TESTING_FAKE_KUBE_API_SERVER_H_
#define CARBONROUTE_TEST_TESTING_FAKE_KUBE_API_SERVER_H_

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "test/testing/fake_batch_api.h"

namespace carbonroute::testing {

struct KubeApiRequest {
  std::string method;
  std::string target;         // path and query as sent
  std::string authorization;  // the Authorization header ("" if none)
  std::string client_cn;      // the client certificate's CN (mutual TLS; "" if none)
  std::string server_name;    // the TLS SNI the client sent ("" if none)
  bool watch = false;
};

class FakeKubeApiServer {
 public:
  // Plain HTTP without a certificate; HTTPS with one (PEM files).
  FakeKubeApiServer(const std::string& cert_file = "", const std::string& key_file = "");
  ~FakeKubeApiServer();

  std::string base_url() const;

  // Mutual TLS (HTTPS only; call before the first request): the handshake
  // fails unless the client presents a certificate `ca_file` signed.
  void RequireClientCertificates(const std::string& ca_file);
  // Answers every request but watches with `status` and a Status body while
  // its Authorization header is not `authorization` (401 for a bad token).
  void RequireAuthorization(const std::string& authorization);

  // The Nodes (JSON objects) lists answer, and the list's resourceVersion.
  void SetNodes(std::vector<std::string> nodes_json, std::string resource_version);
  // The next `count` list requests answer `status` with a Status body.
  void FailLists(int status, int count);
  // The next watch request answers `status` (e.g. 410) instead of streaming.
  void FailNextWatch(int status);
  // Queues one event line (without the newline) for the open or next watch.
  void SendEvent(const std::string& event_json);
  // Sends one event line to every watch open now (several clients watching:
  // the carbon role's replicas).
  void BroadcastEvent(const std::string& event_json);
  // Ends the open watch stream as a server timeout does (the final chunk),
  // or drops its connection mid-stream (no final chunk).
  void EndWatch();
  void DropWatch();

  // Serves every request but the Nodes' from `batch` (Jobs, Pods, Leases;
  // borrowed: it must outlive the server).
  void ServeBatchApi(FakeBatchApi* batch) { batch_ = batch; }

  // Waits until `count` watch streams have been opened; false after `timeout`.
  bool AwaitWatches(int count, absl::Duration timeout);
  std::vector<KubeApiRequest> requests() const;

 private:
  struct Connection;
  void Serve();
  void Handle(std::unique_ptr<Connection> connection);
  void StreamWatch(Connection& connection);
  void StreamBatchWatch(Connection& connection, FakeBatchApi& batch, const std::string& resource,
                        const std::string& query, const std::string& ns);

  int listen_fd_ = -1;
  int wake_fds_[2] = {-1, -1};
  int port_ = 0;
  void* ssl_ctx_ = nullptr;  // SSL_CTX*, null for plain HTTP
  std::atomic<FakeBatchApi*> batch_{nullptr};
  std::thread thread_;
  std::vector<std::thread> handlers_;  // server thread only

  mutable absl::Mutex mutex_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::vector<std::string> nodes_ ABSL_GUARDED_BY(mutex_);
  std::string resource_version_ ABSL_GUARDED_BY(mutex_) = "1";
  int list_failures_ ABSL_GUARDED_BY(mutex_) = 0;
  int list_failure_status_ ABSL_GUARDED_BY(mutex_) = 500;
  int next_watch_status_ ABSL_GUARDED_BY(mutex_) = 200;
  std::string required_authorization_ ABSL_GUARDED_BY(mutex_);
  std::deque<std::string> events_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::string> broadcast_ ABSL_GUARDED_BY(mutex_);  // every broadcast event so far
  enum class WatchCommand { kNone, kEnd, kDrop };
  WatchCommand watch_command_ ABSL_GUARDED_BY(mutex_) = WatchCommand::kNone;
  int watches_opened_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<KubeApiRequest> requests_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_FAKE_KUBE_API_SERVER_H_
