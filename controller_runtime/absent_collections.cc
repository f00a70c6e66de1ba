#include "controller_runtime/absent_collections.h"

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"

namespace carbonroute::controller_runtime {

void AbsentCollections::Absent(const std::string& path, const std::string& kind) {
  if (!said_.insert(path).second) return;
  spdlog::info(absl::StrCat(controller_, ": ", path, " answered 404 (the ", kind,
                            " CRD is not installed): none"));
}

}  // namespace carbonroute::controller_runtime
