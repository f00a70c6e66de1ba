#include "cli/daemon_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "test/testing/temp_dir.h"

namespace carbonroute::cli {
namespace {

using ::testing::HasSubstr;

// Parses `args` (after the program name) with `flags` added, then Check()s.
void Parse(DaemonFlags& flags, std::vector<std::string> args) {
  CLI::App app;
  flags.AddTo(app);
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector in reverse order
  app.parse(args);
  flags.Check();
}

TEST(DaemonFlags, TheDefaultsAndTheCollectorsNoDefaults) {
  DaemonFlags scheduler({.listen_address = "127.0.0.1:8888"});
  Parse(scheduler, {});
  EXPECT_EQ(scheduler.log_level(), LogLevel::kInfo);
  EXPECT_EQ(scheduler.log_format(), LogFormat::kLogfmt);
  EXPECT_EQ(scheduler.listen_address(), "127.0.0.1:8888");
  EXPECT_FALSE(scheduler.web().tls.has_value());
  // The collector's file decides what its flags leave unsaid.
  DaemonFlags collector({.log_level = "", .listen_address = ""});
  Parse(collector, {});
  EXPECT_EQ(collector.log_level(), std::nullopt);
  EXPECT_EQ(collector.listen_address(), "");
}

TEST(DaemonFlags, ValuesAsGivenAndTheOldNames) {
  DaemonFlags flags({.old_listen_flag = "--listen", .old_log_level_flag = "--log-level"});
  Parse(flags, {"--log.level", "trace", "--log.format", "json", "--web.listen-address", ":9464"});
  EXPECT_EQ(flags.log_level(), LogLevel::kTrace);
  EXPECT_EQ(flags.log_format(), LogFormat::kJson);
  EXPECT_EQ(flags.listen_address(), "0.0.0.0:9464");  // :port is every interface
  DaemonFlags old({.old_listen_flag = "--listen", .old_log_level_flag = "--log-level"});
  Parse(old, {"--log-level", "off", "--listen", "127.0.0.1:1"});
  EXPECT_EQ(old.log_level(), LogLevel::kOff);
  EXPECT_EQ(old.listen_address(), "127.0.0.1:1");
  DaemonFlags without_old;  // no old names: they are unknown options
  EXPECT_THROW(Parse(without_old, {"--listen", "127.0.0.1:1"}), CLI::ParseError);
}

TEST(DaemonFlags, MistakesAreValidationErrorsNamingTheFlagAndTheValue) {
  DaemonFlags level;
  EXPECT_THROW(Parse(level, {"--log.level", "loud"}), CLI::ValidationError);
  DaemonFlags listen;
  try {
    Parse(listen, {"--web.listen-address", "host:"});
    ADD_FAILURE() << "accepted host:";
  } catch (const CLI::ValidationError& e) {
    EXPECT_THAT(e.what(), HasSubstr("--web.listen-address"));
    EXPECT_THAT(e.what(), HasSubstr("got \"host:\""));
  }
  testing::ScopedTempDir dir;
  std::ofstream(dir.File("web.yml")) << "basic_auth_users: {prometheus: plaintext-password}\n";
  DaemonFlags web;
  try {
    Parse(web, {"--web.config.file", dir.File("web.yml")});
    ADD_FAILURE() << "accepted a plaintext password";
  } catch (const CLI::ValidationError& e) {
    EXPECT_THAT(e.what(), HasSubstr("--web.config.file"));
    EXPECT_THAT(e.what(), HasSubstr("basic_auth_users.prometheus: not a bcrypt hash"));
    EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("plaintext-password")));  // never a secret
  }
  DaemonFlags missing;
  EXPECT_THROW(Parse(missing, {"--web.config.file", dir.File("nope.yml")}), CLI::ValidationError);
}

}  // namespace
}  // namespace carbonroute::cli
