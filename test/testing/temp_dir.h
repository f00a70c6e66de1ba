// File: test/testing/temp_dir.h
//
// A fresh directory of the test's own under the system temporary directory
// (mkdtemp, so two checkouts testing at once never meet), removed with
// everything in it when the object goes out of scope.
#ifndef CARBONROUTE_TEST_TESTING_TEMP_DIR_H_
#define CARBONROUTE_TEST_TESTING_TEMP_DIR_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

namespace carbonroute::testing {

class ScopedTempDir {
 public:
  ScopedTempDir() {
    std::string pattern = ::testing::TempDir() + "/carbonroute-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()) == nullptr) ADD_FAILURE() << "mkdtemp(" << pattern << ") failed";
    path_ = buffer.data();
  }
  ~ScopedTempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_TEMP_DIR_H_
