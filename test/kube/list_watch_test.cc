// The list-then-watch loop against the fake API server: a 410 Gone answer, a
// malformed event and a refused object on demand, which a real server cannot be made
// to send. The real server's own watch endings (timeoutSeconds, 410 after compaction)
// are test/cluster/watch_expiry_test.cc's.
#include "kube/list_watch.h"

#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "net/curl_http_client.h"
#include "test/testing/fake_kube_api_server.h"

namespace carbonroute::kube {
namespace {

using ::carbonroute::testing::FakeKubeApiServer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Waits for conditions, never for time: the deadline only ends a hung test.
constexpr absl::Duration kPatience = absl::Seconds(30);

std::string Node(const std::string& name, const std::string& rv) {
  return absl::StrCat(R"({"metadata":{"name":")", name, R"(","resourceVersion":")", rv, R"("}})");
}

// Records what the loop says, as lines.
class Recorder final : public ListWatchHandler {
 public:
  void OnListStart() override { Add("list-start"); }
  absl::Status OnListItem(const JsonField& item) override {
    Add(absl::StrCat("item ", item["metadata"]["name"].OptionalString().value_or("?")));
    return absl::OkStatus();
  }
  void OnListed(const std::string& resource_version, int pages) override {
    Add(absl::StrCat("listed rv=", resource_version, " pages=", pages));
  }
  absl::Status OnEvent(WatchEventType type, const JsonField& object) override {
    const std::string name = object["metadata"]["name"].OptionalString().value_or("?");
    if (name == "bad") return object["metadata"]["name"].Error("refused by the handler");
    Add(absl::StrCat(type == WatchEventType::kAdded      ? "added "
                     : type == WatchEventType::kModified ? "modified "
                                                         : "deleted ",
                     name));
    return absl::OkStatus();
  }
  void OnExpired() override { Add("expired"); }
  void OnFailure(const std::string& what) override { Add(absl::StrCat("failure ", what)); }

  bool Await(const std::string& line) {
    absl::MutexLock lock(&mutex_);
    auto seen = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return std::find(lines_.begin(), lines_.end(), line) != lines_.end();
    };
    return mutex_.AwaitWithTimeout(absl::Condition(&seen), kPatience);
  }
  std::vector<std::string> lines() const {
    absl::MutexLock lock(&mutex_);
    return lines_;
  }

 private:
  void Add(std::string line) {
    absl::MutexLock lock(&mutex_);
    lines_.push_back(std::move(line));
  }
  mutable absl::Mutex mutex_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mutex_);
};

class ListWatchTest : public ::testing::Test {
 protected:
  void Start(ListWatchOptions options) {
    options.path = "/api/v1/nodes";
    options.list_kind = "NodeList";
    options.page_size = 1;
    options.backoff_initial = absl::Milliseconds(5);
    options.backoff_max = absl::Milliseconds(20);
    options.seed = 3;
    absl::StatusOr<std::unique_ptr<net::CurlHttpClient>> http =
        net::CurlHttpClient::Create("list-watch-test");
    ASSERT_TRUE(http.ok());
    http_ = *std::move(http);
    client_ = std::make_unique<KubeClient>(KubeConnection{.server = server_.base_url()}, *http_);
    watch_ = std::make_unique<ListWatch>(options, *client_, RealClock(), recorder_);
    thread_ = std::thread([this] {
      watch_->Run(stop_);
      returned_.Notify();
    });
  }
  void TearDown() override {
    stop_.Notify();
    if (thread_.joinable()) thread_.join();
  }

  FakeKubeApiServer server_;
  Recorder recorder_;
  std::unique_ptr<net::CurlHttpClient> http_;
  std::unique_ptr<KubeClient> client_;
  std::unique_ptr<ListWatch> watch_;
  absl::Notification stop_, returned_;
  std::thread thread_;
};

TEST_F(ListWatchTest, ListsPagesThenWatchesBookmarksAndListsAgainAfterGone) {
  server_.SetNodes({Node("a", "3"), Node("b", "4")}, "10");
  Start({});
  ASSERT_TRUE(recorder_.Await("listed rv=10 pages=2"));
  ASSERT_TRUE(server_.AwaitWatches(1, kPatience));
  server_.SendEvent(absl::StrCat(R"({"type":"ADDED","object":)", Node("c", "11"), "}"));
  server_.SendEvent(
      R"({"type":"BOOKMARK","object":{"kind":"Node","metadata":{"resourceVersion":"15"}}})");
  server_.SendEvent(absl::StrCat(R"({"type":"DELETED","object":)", Node("a", "16"), "}"));
  ASSERT_TRUE(recorder_.Await("deleted a"));
  server_.FailNextWatch(410);
  server_.EndWatch();  // the next watch, from 16, answers 410 Gone: list again
  ASSERT_TRUE(server_.AwaitWatches(2, kPatience));
  EXPECT_THAT(recorder_.lines(),
              ElementsAre("list-start", "item a", "item b", "listed rv=10 pages=2", "added c",
                          "deleted a", HasSubstr("resourceVersion 16 expired (HTTP 410)"),
                          "list-start", "item a", "item b", "listed rv=10 pages=2"));
  EXPECT_EQ(watch_->stats().relists, 1);
  std::vector<std::string> watched;
  for (const auto& request : server_.requests()) {
    if (request.watch) watched.push_back(request.target);
  }
  ASSERT_GE(watched.size(), 3u);
  EXPECT_THAT(watched[0], HasSubstr("resourceVersion=10"));
  EXPECT_THAT(watched[1], HasSubstr("resourceVersion=16"));  // the bookmark, then the delete
}

TEST_F(ListWatchTest, AMalformedEventOrAnObjectTheHandlerRefusesListsAgain) {
  server_.SetNodes({Node("a", "3")}, "10");
  Start({});
  ASSERT_TRUE(server_.AwaitWatches(1, kPatience));
  server_.SendEvent(R"({"type":"RENAMED","object":{}})");
  ASSERT_TRUE(server_.AwaitWatches(2, kPatience));
  // Broadcast: the first stream's server thread, still open, must not take it.
  server_.BroadcastEvent(absl::StrCat(R"({"type":"ADDED","object":)", Node("bad", "12"), "}"));
  ASSERT_TRUE(server_.AwaitWatches(3, kPatience));
  const std::vector<std::string> lines = recorder_.lines();
  EXPECT_THAT(lines,
              ::testing::Contains(
                  "failure watch event: type: unknown event type \"RENAMED\"; listing again"));
  EXPECT_THAT(lines, ::testing::Contains(
                         "failure watch event: object.metadata.name: refused by the handler; "
                         "listing again"));
  EXPECT_EQ(watch_->stats().lists, 3);
}

TEST_F(ListWatchTest, WatchOnlyFromAVersionEndsWhenItExpires) {
  ListWatchOptions options;
  options.watch_from = "42";
  Start(options);
  ASSERT_TRUE(server_.AwaitWatches(1, kPatience));
  server_.SendEvent(absl::StrCat(R"({"type":"MODIFIED","object":)", Node("a", "43"), "}"));
  ASSERT_TRUE(recorder_.Await("modified a"));
  server_.SendEvent(
      R"json({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 42 (50)"}})json");
  ASSERT_TRUE(returned_.WaitForNotificationWithTimeout(kPatience));
  EXPECT_THAT(recorder_.lines(),
              ElementsAre("modified a",
                          HasSubstr("watch ERROR event (code 410: Expired: too old "
                                    "resource version: 42 (50))"),
                          "expired"));
  for (const auto& request : server_.requests()) {
    EXPECT_TRUE(request.watch) << "listed: " << request.target;
    EXPECT_THAT(request.target, HasSubstr("resourceVersion=42"));
  }
}

}  // namespace
}  // namespace carbonroute::kube
