#include "providers/credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "test/testing/status_matchers.h"
#include "test/testing/temp_dir.h"

namespace carbonroute::providers {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

TEST(ResolveSecret, FromEnvironmentFileAndSystemdCredential) {
  testing::ScopedTempDir temp_dir;  // credentials
  const std::string& dir = temp_dir.path();
  std::ofstream(dir + "/watttime-password") << "s3cret-from-credential\n";
  std::ofstream(dir + "/token") << "s3cret-from-file\r\n";
  setenv("CARBONROUTE_TEST_SECRET", "s3cret-from-env", 1);
  setenv("CREDENTIALS_DIRECTORY", dir.c_str(), 1);

  EXPECT_EQ(*ResolveSecret({SecretRef::Source::kEnv, "CARBONROUTE_TEST_SECRET"}, "p.password"),
            "s3cret-from-env");
  EXPECT_EQ(*ResolveSecret({SecretRef::Source::kFile, dir + "/token"}, "p.token"),
            "s3cret-from-file");
  EXPECT_EQ(*ResolveSecret({SecretRef::Source::kCredential, "watttime-password"}, "p.password"),
            "s3cret-from-credential");
  EXPECT_EQ(*ResolveSecret({SecretRef::Source::kLiteral, "literal"}, "p.password"), "literal");
  unsetenv("CREDENTIALS_DIRECTORY");
}

TEST(ResolveSecret, ErrorsNameTheReferenceNeverAValue) {
  unsetenv("CARBONROUTE_TEST_UNSET");
  EXPECT_THAT(
      ResolveSecret({SecretRef::Source::kEnv, "CARBONROUTE_TEST_UNSET"},
                    "provider \"wt\" password"),
      StatusIs(absl::StatusCode::kNotFound,
               "provider \"wt\" password: environment variable CARBONROUTE_TEST_UNSET is not set"));
  setenv("CARBONROUTE_TEST_EMPTY", "", 1);  // set, but to nothing: said as it is
  EXPECT_THAT(ResolveSecret({SecretRef::Source::kEnv, "CARBONROUTE_TEST_EMPTY"}, "p"),
              StatusIs(absl::StatusCode::kNotFound,
                       "p: environment variable CARBONROUTE_TEST_EMPTY is set but empty"));
  unsetenv("CARBONROUTE_TEST_EMPTY");
  EXPECT_THAT(
      ResolveSecret({SecretRef::Source::kFile, "/nonexistent/secret"}, "p"),
      StatusIs(absl::StatusCode::kNotFound,
               "p: cannot read secret file \"/nonexistent/secret\": No such file or directory"));
  unsetenv("CREDENTIALS_DIRECTORY");
  EXPECT_THAT(ResolveSecret({SecretRef::Source::kCredential, "wt"}, "p"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("needs $CREDENTIALS_DIRECTORY (systemd LoadCredential=)")));
}

// A Secret mounted as a volume is a directory: said so, with the files it holds (not "empty").
TEST(ResolveSecret, ADirectoryIsNamedAsOneWithTheKeysItHolds) {
  testing::ScopedTempDir temp_dir;  // credentials
  const std::string mount = temp_dir.path() + "/watttime";
  std::filesystem::create_directories(mount);
  std::ofstream(mount + "/username") << "user\n";
  std::ofstream(mount + "/password") << "s3cret\n";
  const absl::StatusOr<std::string> read =
      ResolveSecret({SecretRef::Source::kFile, mount}, "provider \"wt\" password");
  EXPECT_THAT(read, StatusIs(absl::StatusCode::kNotFound,
                             absl::StrCat("provider \"wt\" password: secret file \"", mount,
                                          "\" is a directory (a Secret's mount?): name the file "
                                          "of one key inside it, e.g. \"",
                                          mount, "/password\" (it holds password, username)")));
  EXPECT_TRUE(IsMissingCredential(read.status()));
  EXPECT_THAT(read.status().message(), ::testing::Not(HasSubstr("s3cret")));
  std::filesystem::create_directories(temp_dir.path() + "/none");
  EXPECT_THAT(ResolveSecret({SecretRef::Source::kFile, temp_dir.path() + "/none"}, "p"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("inside it, and it holds none")));
}

}  // namespace
}  // namespace carbonroute::providers
