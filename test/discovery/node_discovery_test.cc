#include "discovery/node_discovery.h"

#include <fstream>
#include <memory>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "net/curl_http_client.h"
#include "test/testing/fake_kube_api_server.h"
#include "test/testing/temp_dir.h"
#include "test/testing/test_certificates.h"

namespace carbonroute::discovery {
namespace {

using ::carbonroute::testing::FakeKubeApiServer;
using ::carbonroute::testing::KubeApiRequest;
using ::carbonroute::testing::ScopedTempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Waits for conditions, never for time: the deadline only ends a hung test.
constexpr absl::Duration kPatience = absl::Seconds(30);

std::string NodeJson(const std::string& name, const std::string& address,
                     const std::string& zone = "europe-west1-b", const std::string& rv = "1") {
  return absl::StrCat(R"({"metadata":{"name":")", name, R"(","resourceVersion":")", rv,
                      R"(","labels":{"topology.kubernetes.io/region":"europe-west1",)",
                      R"("topology.kubernetes.io/zone":")", zone, R"("}},)",
                      R"("status":{"addresses":[{"type":"InternalIP","address":")", address,
                      R"("}],"conditions":[{"type":"Ready","status":"True"}]}})");
}

std::string Event(const std::string& type, const std::string& object) {
  return absl::StrCat(R"({"type":")", type, R"(","object":)", object, "}");
}

// Records what the listener is told.
class Recorder {
 public:
  void OnNodes(const std::vector<kube::KubeNode>& nodes,
               const std::optional<kube::KubeNode>& self) {
    absl::MutexLock lock(&mutex_);
    names_.clear();
    for (const kube::KubeNode& node : nodes) names_.push_back(node.name + "=" + node.address);
    self_ = self;
    ++calls_;
  }
  // Waits until the listener has been told exactly `names`.
  bool AwaitNames(const std::vector<std::string>& names) {
    absl::MutexLock lock(&mutex_);
    auto seen = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return names_ == names; };
    return mutex_.AwaitWithTimeout(absl::Condition(&seen), kPatience);
  }
  std::vector<std::string> names() const {
    absl::MutexLock lock(&mutex_);
    return names_;
  }
  std::optional<kube::KubeNode> self() const {
    absl::MutexLock lock(&mutex_);
    return self_;
  }

 private:
  mutable absl::Mutex mutex_;
  std::vector<std::string> names_ ABSL_GUARDED_BY(mutex_);
  std::optional<kube::KubeNode> self_ ABSL_GUARDED_BY(mutex_);
  int calls_ ABSL_GUARDED_BY(mutex_) = 0;
};

class NodeDiscoveryTest : public ::testing::Test {
 protected:
  // Starts discovery against `server` on a thread.
  void Start(const FakeKubeApiServer& server, kube::KubeConnection endpoint = {}) {
    absl::StatusOr<std::unique_ptr<net::CurlHttpClient>> http =
        net::CurlHttpClient::Create("node-discovery-test");
    ASSERT_TRUE(http.ok());
    http_ = *std::move(http);
    endpoint.server = server.base_url();
    NodeDiscoveryOptions options;
    options.connection = endpoint;
    options.self_name = "self";
    options.list_watch.page_size = 2;
    options.list_watch.watch_timeout = absl::Seconds(60);
    options.list_watch.request_timeout = absl::Seconds(20);
    options.list_watch.backoff_initial = absl::Milliseconds(5);
    options.list_watch.backoff_max = absl::Milliseconds(20);
    options.list_watch.seed = 7;
    discovery_ = std::make_unique<NodeDiscovery>(
        options, *http_, RealClock(),
        [this](const std::vector<kube::KubeNode>& nodes,
               const std::optional<kube::KubeNode>& self) { recorder_.OnNodes(nodes, self); });
    thread_ = std::thread([this] { discovery_->Run(stop_); });
  }
  void TearDown() override {
    stop_.Notify();
    if (thread_.joinable()) thread_.join();
  }
  // Waits until discovery has counted `failures` failed requests.
  bool AwaitFailures(int64_t failures) {
    const absl::Time deadline = absl::Now() + kPatience;
    while (discovery_->stats().failures < failures) {
      if (absl::Now() > deadline) return false;
      absl::SleepFor(absl::Milliseconds(5));  // polling a counter, not timing
    }
    return true;
  }

  ScopedTempDir dir_;
  Recorder recorder_;
  std::unique_ptr<net::CurlHttpClient> http_;
  std::unique_ptr<NodeDiscovery> discovery_;
  absl::Notification stop_;
  std::thread thread_;
};

TEST_F(NodeDiscoveryTest, ListsEveryPageThenAppliesWatchEvents) {
  FakeKubeApiServer server;
  server.SetNodes({NodeJson("a", "127.0.0.2"), NodeJson("b", "127.0.0.3"),
                   NodeJson("c", "127.0.0.4"), NodeJson("self", "127.0.0.1")},
                  "100");
  Start(server);
  ASSERT_TRUE(
      recorder_.AwaitNames({"a=127.0.0.2", "b=127.0.0.3", "c=127.0.0.4", "self=127.0.0.1"}));
  ASSERT_TRUE(recorder_.self().has_value());
  EXPECT_EQ(recorder_.self()->zone, "europe-west1-b");
  ASSERT_TRUE(server.AwaitWatches(1, kPatience));

  server.SendEvent(Event("ADDED", NodeJson("d", "127.0.0.5", "europe-west1-c", "101")));
  ASSERT_TRUE(recorder_.AwaitNames(
      {"a=127.0.0.2", "b=127.0.0.3", "c=127.0.0.4", "d=127.0.0.5", "self=127.0.0.1"}));
  server.SendEvent(Event("MODIFIED", NodeJson("a", "127.0.0.9", "europe-west1-b", "102")));
  server.SendEvent(Event("DELETED", NodeJson("b", "127.0.0.3", "europe-west1-b", "103")));
  server.SendEvent(
      R"({"type":"BOOKMARK","object":{"kind":"Node","metadata":{"resourceVersion":"150"}}})");
  ASSERT_TRUE(
      recorder_.AwaitNames({"a=127.0.0.9", "c=127.0.0.4", "d=127.0.0.5", "self=127.0.0.1"}));

  // The server ends the watch (its timeoutSeconds): discovery resumes from the bookmark.
  server.EndWatch();
  ASSERT_TRUE(server.AwaitWatches(2, kPatience));
  const std::vector<KubeApiRequest> requests = server.requests();
  std::vector<std::string> lists, watches;
  for (const KubeApiRequest& r : requests) (r.watch ? watches : lists).push_back(r.target);
  EXPECT_THAT(lists, ElementsAre("/api/v1/nodes?limit=2", "/api/v1/nodes?limit=2&continue=2"));
  ASSERT_EQ(watches.size(), 2u);
  EXPECT_THAT(watches[0], HasSubstr("watch=true&resourceVersion=100&allowWatchBookmarks=true"
                                    "&timeoutSeconds=60"));
  EXPECT_THAT(watches[1], HasSubstr("resourceVersion=150"));
  EXPECT_EQ(discovery_->stats().lists, 1);
}

TEST_F(NodeDiscoveryTest, ListsAgainAfterGoneAndAfterAnErrorEvent) {
  FakeKubeApiServer server;
  server.SetNodes({NodeJson("a", "127.0.0.2")}, "5");
  server.FailNextWatch(410);  // the list's resourceVersion has already expired
  Start(server);
  ASSERT_TRUE(server.AwaitWatches(1, kPatience));
  EXPECT_EQ(discovery_->stats().lists, 2);
  EXPECT_EQ(discovery_->stats().relists, 1);

  // While the watch runs, a Node appears that the stream never reports; a
  // 410 mid-watch makes discovery list again and find it.
  server.SetNodes({NodeJson("a", "127.0.0.2"), NodeJson("e", "127.0.0.6")}, "20");
  server.SendEvent(
      R"json({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 5 (20)"}})json");
  ASSERT_TRUE(recorder_.AwaitNames({"a=127.0.0.2", "e=127.0.0.6"}));
  ASSERT_TRUE(server.AwaitWatches(2, kPatience));
  EXPECT_EQ(discovery_->stats().relists, 2);
  EXPECT_THAT(server.requests().back().target, HasSubstr("resourceVersion=20"));
}

TEST_F(NodeDiscoveryTest, KeepsTheLastNodesWhileTheServerFailsAndRecovers) {
  FakeKubeApiServer server;
  server.SetNodes({NodeJson("a", "127.0.0.2")}, "5");
  Start(server);
  ASSERT_TRUE(server.AwaitWatches(1, kPatience));
  // The connection drops mid-stream; the version has expired meanwhile, and
  // the API server answers the next three lists with 503.
  server.FailLists(503, 3);
  server.FailNextWatch(410);
  server.DropWatch();
  ASSERT_TRUE(AwaitFailures(4));
  EXPECT_THAT(recorder_.names(), ElementsAre("a=127.0.0.2"));  // kept, not emptied
  ASSERT_TRUE(server.AwaitWatches(2, kPatience));              // back after the backoff
  EXPECT_THAT(recorder_.names(), ElementsAre("a=127.0.0.2"));
}

TEST_F(NodeDiscoveryTest, KeepsNodesWhenTheServerIsGone) {
  auto server = std::make_unique<FakeKubeApiServer>();
  server->SetNodes({NodeJson("a", "127.0.0.2")}, "5");
  Start(*server);
  ASSERT_TRUE(server->AwaitWatches(1, kPatience));
  server->EndWatch();
  server.reset();  // connections are refused from now on
  ASSERT_TRUE(AwaitFailures(3));
  EXPECT_THAT(recorder_.names(), ElementsAre("a=127.0.0.2"));
  EXPECT_THAT(discovery_->stats().last_error, HasSubstr("Couldn't connect"));
}

TEST_F(NodeDiscoveryTest, ReadsARotatedTokenBeforeTheNextRequest) {
  FakeKubeApiServer server;
  server.SetNodes({NodeJson("a", "127.0.0.2")}, "5");
  const std::string token_file = dir_.path() + "/token";
  std::ofstream(token_file) << "first-token\n";
  kube::KubeConnection endpoint;
  endpoint.token_file = token_file;
  Start(server, endpoint);
  ASSERT_TRUE(server.AwaitWatches(1, kPatience));
  std::ofstream(token_file) << "second-token\n";  // the kubelet rotates the projected token
  server.EndWatch();
  ASSERT_TRUE(server.AwaitWatches(2, kPatience));
  const std::vector<KubeApiRequest> requests = server.requests();
  EXPECT_EQ(requests.front().authorization, "Bearer first-token");
  EXPECT_EQ(requests.back().authorization, "Bearer second-token");
}

TEST_F(NodeDiscoveryTest, VerifiesTheServerAgainstTheGivenCa) {
  const auto pki = testing::MakeTestCertificates(dir_.path());
  FakeKubeApiServer server(pki.server_cert_file, pki.server_key_file);
  server.SetNodes({NodeJson("a", "127.0.0.2")}, "5");
  kube::KubeConnection endpoint;
  endpoint.ca_file = pki.ca_file;
  Start(server, endpoint);
  ASSERT_TRUE(recorder_.AwaitNames({"a=127.0.0.2"}));
  ASSERT_TRUE(server.AwaitWatches(1, kPatience));
}

TEST_F(NodeDiscoveryTest, RefusesAServerItsCaDidNotSign) {
  const auto pki = testing::MakeTestCertificates(dir_.path());
  const auto other = testing::MakeTestCertificates(dir_.path(), "other-");
  FakeKubeApiServer server(pki.server_cert_file, pki.server_key_file);
  server.SetNodes({NodeJson("a", "127.0.0.2")}, "5");
  kube::KubeConnection endpoint;
  endpoint.ca_file = other.ca_file;
  Start(server, endpoint);
  ASSERT_TRUE(AwaitFailures(2));
  EXPECT_THAT(discovery_->stats().last_error, HasSubstr("certificate"));
  EXPECT_TRUE(recorder_.names().empty());
  for (const KubeApiRequest& r : server.requests())
    ADD_FAILURE() << "request got through: " << r.target;
}

}  // namespace
}  // namespace carbonroute::discovery
