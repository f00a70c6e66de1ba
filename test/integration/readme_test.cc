// The README's statements about the tree and the package, checked against the
// tree and the built binaries so that they cannot drift.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "test/testing/build_paths.h"
#include "test/testing/shell.h"
#include "test/testing/subprocess.h"

namespace carbonroute {
namespace {

const std::string kSource = CARBONROUTE_SOURCE_DIR;

std::string ReadmeSection(const std::string& heading) {
  const std::string readme = testing::ReadFile(kSource + "/README.md");
  const std::size_t start = readme.find("\n## " + heading + "\n");
  if (start == std::string::npos) return "";
  return readme.substr(start, readme.find("\n## ", start + 1) - start);
}

TEST(Readme, TheFolderTableNamesEveryFolderOfTheTree) {
  const std::string table = ReadmeSection("Development");
  ASSERT_FALSE(table.empty());
  std::set<std::string> folders;
  for (const auto& entry : std::filesystem::directory_iterator(kSource)) {
    const std::string name = entry.path().filename().string();
    // Build directories and git's own are not the tree.
    if (!entry.is_directory() || name == ".git" || absl::StartsWith(name, "build")) continue;
    folders.insert(name + "/");
  }
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/deploy")) {
    if (entry.is_directory()) folders.insert("deploy/" + entry.path().filename().string() + "/");
  }
  for (const std::string& folder : folders) {
    if (folder == "deploy/") continue;  // its subfolders are listed
    EXPECT_THAT(table, ::testing::HasSubstr("`" + folder + "`")) << folder;
  }
}

TEST(Readme, ThePackagesDependenciesAreTheLibrariesTheBinariesLink) {
  // Debian package name (as the README says it) of each shared library the
  // binaries need; the C and C++ runtimes are every system's.
  const std::map<std::string, std::string> packages = {{"libabsl_", "abseil"},
                                                       {"libcurl.", "libcurl4"},
                                                       {"libsimdjson.", "simdjson"},
                                                       {"libsqlite3.", "SQLite"},
                                                       {"libprometheus-cpp", "prometheus-cpp"},
                                                       {"libmicrohttpd.", "libmicrohttpd"},
                                                       {"libgnutls.", "GnuTLS"},
                                                       {"libcrypt.", "libcrypt"},
                                                       {"libspdlog.", "spdlog"},
                                                       {"libfmt.", "fmt"},
                                                       {"libyaml-cpp.", "yaml-cpp"},
                                                       {"libz.", "zlib"},
                                                       {"libcsv.", "libcsv3"},
                                                       {"libsystemd.", "libsystemd0"}};
  const std::set<std::string> runtime = {"libc.", "libm.", "libstdc++.", "libgcc_s."};
  std::set<std::string> needed;
  for (const char* binary : {CARBONROUTE_COLLECTOR_BINARY, CARBONROUTE_SCHEDULER_LITE_BINARY}) {
    testing::ShellRun run = testing::Shell(absl::StrCat("readelf -d ", binary, " 2>&1"));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    for (absl::string_view line : absl::StrSplit(run.output, '\n')) {
      const std::size_t open = line.find("Shared library: [");
      if (open == absl::string_view::npos) continue;
      const std::string library(line.substr(open + 17, line.find(']') - open - 17));
      bool known = false;
      for (const std::string& prefix : runtime) known = known || absl::StartsWith(library, prefix);
      for (const auto& [prefix, package] : packages) {
        if (absl::StartsWith(library, prefix)) {
          needed.insert(package);
          known = true;
        }
      }
      EXPECT_TRUE(known) << library << ": a library the README's Depends list does not name";
    }
  }
  const std::string section = ReadmeSection("Install from the package");
  const std::size_t from = section.find("`dpkg-shlibdeps`: Debian 12's ");
  ASSERT_NE(from, std::string::npos);
  const std::string list = section.substr(from, section.find(')', from) - from);
  for (const auto& [prefix, package] : packages) {
    if (needed.contains(package)) {
      EXPECT_THAT(list, ::testing::HasSubstr(package)) << "linked but not in the README";
    } else {
      EXPECT_THAT(list, ::testing::Not(::testing::HasSubstr(package)))
          << "in the README but not linked";
    }
  }
}

// The README is the user's path; studies and walk-throughs live in docs/.
// Text that went stale once: every alert of the shipped rules is in the alert table, and no
// shipped configuration or manifest uses a flag's old name (--listen, --log-level).
TEST(Readme, TheDocsKeepUpWithTheRulesAndTheFlags) {
  const std::string alerts = testing::ReadFile(kSource + "/docs/grafana-and-alerts.md");
  for (const char* rules :
       {"carbonroute-rules.yaml", "carbonroute-emissions.yaml", "carbonroute-sci.yaml"}) {
    const std::string text = testing::ReadFile(kSource + "/deploy/prometheus/" + rules);
    for (std::size_t at = text.find("alert: "); at != std::string::npos;
         at = text.find("alert: ", at + 1)) {
      const std::size_t end = text.find('\n', at);
      const std::string name = text.substr(at + 7, end - at - 7);
      EXPECT_NE(alerts.find("| `" + name + "` |"), std::string::npos)
          << name << " is not in docs/grafana-and-alerts.md's table";
    }
  }
  for (const char* shipped :
       {"/config/examples/scheduler-lite.env", "/deploy/kubernetes/scheduler.yaml",
        "/deploy/kubernetes/hold.yaml", "/deploy/karmada/host/controller.yaml",
        "/systemd/scheduler-lite.service.in", "/docs/configuration.md"}) {
    const std::string text = testing::ReadFile(kSource + shipped);
    ASSERT_FALSE(text.empty()) << shipped;
    EXPECT_EQ(text.find("--listen "), std::string::npos) << shipped;
    EXPECT_EQ(text.find("--listen="), std::string::npos) << shipped;
    EXPECT_EQ(text.find("--log-level"), std::string::npos) << shipped;
  }
}

TEST(Readme, StaysAtMostFiveHundredLines) {
  const std::string readme = testing::ReadFile(kSource + "/README.md");
  EXPECT_LE(std::count(readme.begin(), readme.end(), '\n'), 500)
      << "move a study or a walk-through to docs/ and link it";
}

TEST(Readme, TheQuickStartSaysHowToRunTheTestsAfterTheDemo) {
  // The demo builds only the two binaries: bare ctest would report the rest "Not Run".
  const std::string quick_start =
      ReadmeSection("Quick start (Debian 12, no credentials, no internet)");
  ASSERT_FALSE(quick_start.empty());
  EXPECT_THAT(quick_start, ::testing::HasSubstr("to run the tests use `./scripts/test`"));
  const std::string demo = testing::ReadFile(kSource + "/scripts/demo");
  EXPECT_THAT(demo, ::testing::HasSubstr("--target carbonroute-collector scheduler-lite"));
}

}  // namespace
}  // namespace carbonroute
