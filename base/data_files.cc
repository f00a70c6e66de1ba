#include "base/data_files.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace carbonroute {

absl::StatusOr<std::string> ReadFileToString(const std::string& path, absl::string_view kind) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    return absl::NotFoundError(absl::StrCat("cannot read ", kind, " \"", path, "\"",
                                            error != 0 ? ": " : "",
                                            error != 0 ? std::strerror(error) : ""));
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::StatusOr<std::string> ReadSecretFile(const std::string& path, absl::string_view what) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    // A Secret mounted as a volume is a directory of one file per key.
    std::vector<std::string> keys;
    for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
      const std::string name = entry.path().filename().string();
      if (!name.empty() && name[0] != '.') keys.push_back(name);
    }
    std::sort(keys.begin(), keys.end());
    return absl::NotFoundError(absl::StrCat(
        what, ": secret file \"", path,
        "\" is a directory (a Secret's mount?): name the file of one key inside it",
        keys.empty() ? std::string(", and it holds none")
                     : absl::StrCat(", e.g. \"", (std::filesystem::path(path) / keys[0]).string(),
                                    "\" (it holds ", absl::StrJoin(keys, ", "), ")")));
  }
  absl::StatusOr<std::string> text = ReadFileToString(path, "secret file");
  if (!text.ok()) return absl::NotFoundError(absl::StrCat(what, ": ", text.status().message()));
  std::string value = *std::move(text);
  while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) value.pop_back();
  if (value.empty()) {
    return absl::NotFoundError(absl::StrCat(what, ": secret file \"", path, "\" is empty"));
  }
  return value;
}

DataPaths DataPathsFrom(std::vector<std::string> first, const std::string& extra) {
  DataPaths paths{std::move(first)};
  if (const char* env = std::getenv("CARBONROUTE_DATA_DIR"); env != nullptr && *env != '\0') {
    paths.search_dirs.push_back(env);
  }
  if (!extra.empty()) paths.search_dirs.push_back(extra);
  // Next to the running binary: <prefix>/bin → <prefix>/share/carbonroute for
  // an install under any prefix (or DESTDIR), build/bin → data/ in a checkout.
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path bin = exe.parent_path();
    paths.search_dirs.push_back((bin.parent_path() / "share" / "carbonroute").string());
    // build/bin of a checkout (its root holds CMakeLists.txt and data/), not an install's PREFIX/..
    const std::filesystem::path checkout = bin.parent_path().parent_path();
    if (std::filesystem::exists(checkout / "CMakeLists.txt", error) &&
        std::filesystem::is_directory(checkout / "data", error)) {
      paths.search_dirs.push_back((checkout / "data").string());
    }
  }
  paths.search_dirs.push_back(CARBONROUTE_DATA_DIR);  // the configured install prefix
  // Each folder once (an install in the configured prefix finds it twice otherwise).
  std::vector<std::string> unique;
  std::set<std::string> seen;  // lexically normal forms
  for (const std::string& dir : paths.search_dirs) {
    if (seen.insert(std::filesystem::path(dir).lexically_normal().string()).second) {
      unique.push_back(dir);
    }
  }
  paths.search_dirs = std::move(unique);
  return paths;
}

absl::StatusOr<std::string> FindDataFile(const std::string& name, const DataPaths& paths) {
  namespace fs = std::filesystem;
  if (fs::path(name).is_absolute() || fs::exists(name)) return name;
  std::vector<std::string> tried = {name};
  for (const std::string& dir : paths.search_dirs) {
    const std::string candidate = (fs::path(dir) / name).string();
    if (fs::exists(candidate)) return candidate;
    tried.push_back(candidate);
  }
  return absl::NotFoundError(
      absl::StrCat("data file \"", name, "\" not found; tried: ", absl::StrJoin(tried, ", ")));
}

}  // namespace carbonroute
