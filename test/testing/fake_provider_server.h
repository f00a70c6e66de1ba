// File: test/testing/fake_provider_server.h
//
// A scripted HTTP/1.1 server on 127.0.0.1, port 0, for provider tests. Raw
// sockets, so a test can script what a well-behaved library server cannot:
// a body shorter than its Content-Length, or a response that never comes.
// Each path (without query) has a handler; unrouted paths answer 404.
// Connections are closed after each response.
#ifndef CARBONROUTE_TEST_TESTING_FAKE_PROVIDER_SERVER_H_
#define CARBONROUTE_TEST_TESTING_FAKE_PROVIDER_SERVER_H_

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace carbonroute::testing {

struct FakeRequest {
  std::string method;
  std::string target;                          // path and query as sent
  std::string path;                            // without the query
  std::map<std::string, std::string> headers;  // names lower-cased
};

struct FakeResponse {
  enum class Mode {
    kNormal,     // status, headers, body
    kTruncated,  // declares Content-Length = body + 100, sends body, closes
    kHang,       // sends nothing; the connection stays open until the server stops
  };
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  Mode mode = Mode::kNormal;
  std::string content_type = "application/json";
};

class FakeProviderServer {
 public:
  using Handler = std::function<FakeResponse(const FakeRequest&)>;

  FakeProviderServer();  // binds 127.0.0.1:0 and starts serving
  ~FakeProviderServer();

  int port() const { return port_; }
  std::string base_url() const;  // "http://127.0.0.1:<port>"

  void Route(const std::string& path, Handler handler);
  // Serves `responses` in order, the last one for every later request.
  void Script(const std::string& path, std::vector<FakeResponse> responses);

  int Count(const std::string& path) const;
  std::vector<FakeRequest> requests() const;

 private:
  void Serve();
  void HandleConnection(int fd);

  int listen_fd_ = -1;
  int wake_fds_[2] = {-1, -1};
  int port_ = 0;
  std::thread thread_;
  mutable absl::Mutex mutex_;
  std::map<std::string, Handler> routes_ ABSL_GUARDED_BY(mutex_);
  std::vector<FakeRequest> requests_ ABSL_GUARDED_BY(mutex_);
  std::vector<int> held_fds_;  // hanging connections, closed at stop (server thread only)
};

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_FAKE_PROVIDER_SERVER_H_
