#include "collector/reloader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <optional>

#include "test/testing/captured_log.h"
#include "test/testing/status_matchers.h"
#include "test/testing/temp_dir.h"

namespace carbonroute::collector {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

constexpr char kTwoPeers[] = R"yaml(
node: {name: from-file, region: r1, location: DE}
providers:
  - type: replay
    locations: [DE]
rtt:
  peers:
    - {name: b, address: 127.0.0.2}
    - {name: c, address: 127.0.0.3, protocol: tcp, port: 22}
)yaml";

class ReloaderTest : public ::testing::Test {
 protected:
  ReloaderTest() { Write(path_, kTwoPeers); }

  Reloader::Target Recorder() {
    return [this](const CollectorConfig& config) {
      applied_ = config;
      return target_answer_;
    };
  }

  testing::ScopedTempDir dir_;
  const std::string path_ = dir_.File("collector.yaml");
  std::optional<CollectorConfig> applied_;
  absl::Status target_answer_ = absl::OkStatus();
};

TEST_F(ReloaderTest, AppliesTheFileWithTheCommandLineOverrides) {
  Reloader reloader(path_, NodeOverrides{"from-flag", "", "FR"});
  reloader.Attach(Recorder());
  ASSERT_THAT(reloader.Reload(), IsOk());
  ASSERT_TRUE(applied_.has_value());
  EXPECT_EQ(applied_->node.name, "from-flag");
  EXPECT_EQ(applied_->node.region, "r1");  // not overridden
  EXPECT_EQ(applied_->node.location, "FR");
  ASSERT_EQ(applied_->rtt.peers.size(), 2u);
  EXPECT_EQ(applied_->rtt.peers[1].protocol, ProbeProtocol::kTcp);
}

TEST_F(ReloaderTest, SeesTheFileAsItIsAtEachReload) {
  Reloader reloader(path_, {});
  reloader.Attach(Recorder());
  ASSERT_THAT(reloader.Reload(), IsOk());
  EXPECT_EQ(applied_->rtt.peers.size(), 2u);
  Write(path_, "node: {name: n}\nproviders: [{type: replay, locations: [DE]}]\n");
  ASSERT_THAT(reloader.Reload(), IsOk());
  EXPECT_TRUE(applied_->rtt.peers.empty());
}

TEST_F(ReloaderTest, ASectionOnlyARestartAppliesIsNamedWithTheRestart) {
  Reloader reloader(path_, {});  // reads the file as the collector started with it
  reloader.Attach(Recorder());
  {
    testing::CapturedLog log;
    ASSERT_THAT(reloader.Reload(), IsOk());  // unchanged: nothing to say
    EXPECT_EQ(log.Occurrences("restart"), 0) << log.text();
  }
  std::string edited = kTwoPeers;
  edited.replace(edited.find("locations: [DE]"), 15, "locations: [FR]");  // a provider's value
  edited += "poll: {interval: 2m}\n";
  Write(path_, edited);
  testing::CapturedLog log;
  ASSERT_THAT(reloader.Reload(), IsOk());
  EXPECT_THAT(log.text(), HasSubstr("warning reload: providers, poll changed in " + path_ +
                                    ", but only rtt is reloaded: restart the collector to "
                                    "apply them"));
  // rtt itself is reloaded: a change there is no warning of this kind.
  Reloader from_edited(path_, {});
  from_edited.Attach(Recorder());
  std::string peers_moved = edited;
  peers_moved.replace(peers_moved.find("127.0.0.2"), 9, "127.0.0.9");
  Write(path_, peers_moved + "# and a comment\n");
  testing::CapturedLog quiet;
  ASSERT_THAT(from_edited.Reload(), IsOk());
  EXPECT_EQ(quiet.Occurrences("only rtt is reloaded"), 0) << quiet.text();
}

TEST_F(ReloaderTest, ABrokenFileReachesNoTargetAndSaysWhy) {
  Reloader reloader(path_, {});
  reloader.Attach(Recorder());
  Write(path_, "node: {name: n}\nproviders: [{type: replay, locations: [DE]}]\nrtt: {peers: 3}\n");
  EXPECT_THAT(reloader.Reload(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rtt.peers")));
  EXPECT_FALSE(applied_.has_value());
  std::remove(path_.c_str());
  EXPECT_THAT(reloader.Reload(), StatusIs(absl::StatusCode::kNotFound, HasSubstr(path_)));
  EXPECT_FALSE(applied_.has_value());
}

TEST_F(ReloaderTest, TheTargetsRefusalIsReturned) {
  Reloader reloader(path_, {});
  target_answer_ = absl::FailedPreconditionError("rtt.peers: restart to probe");
  reloader.Attach(Recorder());
  EXPECT_THAT(reloader.Reload(), StatusIs(absl::StatusCode::kFailedPrecondition, ::testing::_));
}

TEST_F(ReloaderTest, NothingHappensBeforeAttachOrAfterDetach) {
  Reloader reloader(path_, {});
  EXPECT_THAT(reloader.Reload(), StatusIs(absl::StatusCode::kFailedPrecondition, ::testing::_));
  reloader.Attach(Recorder());
  reloader.Attach(nullptr);
  EXPECT_THAT(reloader.Reload(), StatusIs(absl::StatusCode::kFailedPrecondition, ::testing::_));
  EXPECT_FALSE(applied_.has_value());
}

}  // namespace
}  // namespace carbonroute::collector
