// A full disk under the real collector: its cache lives on a small tmpfs,
// mounted in a mount namespace of this test's own (root only; skipped
// otherwise), which a filler file fills up while the collector writes a
// reading per location every second. It must keep exporting, count the
// failures in carbonroute_cache_errors_total, log them once, and recover on
// its own when the filler is deleted.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <regex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "test/testing/collector_process.h"
#include "test/testing/subprocess.h"
#include "test/testing/temp_dir.h"

namespace carbonroute {
namespace {

using ::testing::HasSubstr;

constexpr int kLocations = 200;

// carbonroute_cache_errors_total{operation="put"} on a /metrics page; -1 if absent.
double PutErrors(const std::string& page) {
  static const std::regex line(R"(carbonroute_cache_errors_total\{operation="put"\} (\S+))");
  std::smatch match;
  double value = -1;
  if (std::regex_search(page, match, line)) (void)absl::SimpleAtod(match[1].str(), &value);
  return value;
}

int IntensitySeries(const std::string& page) {
  int count = 0;
  for (std::size_t at = 0;
       (at = page.find("\ncarbonroute_carbon_intensity_grams_per_kilowatt_hour{", at)) !=
       std::string::npos;
       ++at) {
    ++count;
  }
  return count;
}

int64_t Readings(const std::string& database) {
  sqlite3* db = nullptr;
  int64_t count = -1;
  if (sqlite3_open_v2(database.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM readings", -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      count = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return count;
}

// Writes `path` until the file system refuses (ENOSPC). Returns the bytes written.
int64_t FillUp(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  int64_t written = 0;
  const std::string block(4096, 'x');
  while (write(fd, block.data(), block.size()) > 0) written += static_cast<int64_t>(block.size());
  const int error = errno;
  close(fd);
  return error == ENOSPC ? written : -1;
}

class TmpfsMount {
 public:
  // A private mount namespace for this process, then a tmpfs of `size` on `dir`.
  TmpfsMount(const std::string& dir, const std::string& size) : dir_(dir) {
    if (unshare(CLONE_NEWNS) != 0) {
      error_ = absl::StrCat("unshare(CLONE_NEWNS): ", std::strerror(errno));
      return;
    }
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, ("size=" + size).c_str()) != 0) {
      error_ = absl::StrCat("mount tmpfs: ", std::strerror(errno));
      return;
    }
    mounted_ = true;
  }
  ~TmpfsMount() {
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
  }
  const std::string& error() const { return error_; }

 private:
  std::string dir_;
  std::string error_;
  bool mounted_ = false;
};

TEST(CacheFullDisk, KeepsExportingCountsLogsOnceAndRecoversWhenSpaceReturns) {
  testing::ScopedTempDir temp_dir;
  const std::string disk = temp_dir.File("disk");
  std::filesystem::create_directory(disk);
  TmpfsMount tmpfs(disk, "16m");
  if (!tmpfs.error().empty()) GTEST_SKIP() << "needs root for a tmpfs: " << tmpfs.error();

  std::string yaml = absl::StrCat("listen_address: 127.0.0.1:0\ndatabase: ", disk,
                                  "/cache.sqlite\nnode: {name: full-disk-node}\n"
                                  "poll: {interval: 1s, forecast_horizon: 0s}\n"
                                  "providers:\n  - type: static\n    validity: 1s\n    values: {");
  for (int i = 0; i < kLocations; ++i) absl::StrAppend(&yaml, i ? ", " : "", "z", i, ": ", 100 + i);
  absl::StrAppend(&yaml, "}\n");
  testing::CollectorProcess collector = testing::StartCollector(temp_dir.path(), yaml);
  ASSERT_GT(collector.port, 0) << collector.process->Log();
  const int port = collector.port;
  EXPECT_EQ(PutErrors(testing::HttpGet(port, "/metrics")), 0);

  const std::string filler = disk + "/filler";
  ASSERT_GT(FillUp(filler), 0);
  double errors = 0;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        errors = PutErrors(testing::HttpGet(port, "/metrics"));
        return errors >= 3 * kLocations;  // at least three polls' worth
      },
      absl::Seconds(60)))
      << errors << "\n"
      << collector.process->Log();

  // Still exporting every location, still healthy, and one error line for all of it.
  const std::string page = testing::HttpGet(port, "/metrics");
  EXPECT_EQ(IntensitySeries(page), kLocations);
  EXPECT_TRUE(testing::IsHealthy(port));
  std::string log = collector.process->Log();
  EXPECT_THAT(log, HasSubstr("cache put failed"));
  EXPECT_THAT(log, ::testing::AnyOf(HasSubstr("disk is full"), HasSubstr("disk I/O error")));
  const std::regex failed_line("cache [a-z_]+ failed");
  EXPECT_EQ(std::distance(std::sregex_iterator(log.begin(), log.end(), failed_line),
                          std::sregex_iterator()),
            1)
      << log;

  // Space returns: writes succeed again without a restart.
  std::filesystem::remove(filler);
  ASSERT_TRUE(testing::WaitFor(
      [&] { return collector.process->Log().find("cache recovered") != std::string::npos; },
      absl::Seconds(60)))
      << collector.process->Log();
  const double after_recovery = PutErrors(testing::HttpGet(port, "/metrics"));
  const int64_t rows = Readings(disk + "/cache.sqlite");
  ASSERT_TRUE(testing::WaitFor(
      [&] { return Readings(disk + "/cache.sqlite") >= rows + kLocations; }, absl::Seconds(60)))
      << rows << " then " << Readings(disk + "/cache.sqlite");
  EXPECT_EQ(PutErrors(testing::HttpGet(port, "/metrics")), after_recovery);
  EXPECT_EQ(collector.process->Terminate(), 0) << collector.process->Log();
}

}  // namespace
}  // namespace carbonroute
