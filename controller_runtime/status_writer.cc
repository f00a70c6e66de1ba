#include "controller_runtime/status_writer.h"

#include <spdlog/spdlog.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace carbonroute::controller_runtime {

bool StatusWriter::Write(const std::string& uid, const std::string& path, const std::string& what,
                         const std::string& body) {
  if (dry_run_) return false;
  const auto it = written_.find(uid);
  if (it != written_.end() && it->second == body) return true;
  const absl::StatusOr<std::string> written = api_.PatchStatus(path, kube::kMergePatch, body);
  if (!written.ok()) {
    metrics_.Error("status");
    spdlog::warn(
        absl::StrCat(controller_, ": the status of ", what, ": ", written.status().message()));
    return false;
  }
  written_[uid] = body;
  return true;
}

absl::Time StatusWriter::TransitionTime(const std::string& uid, const std::string& type,
                                        const std::string& status, absl::Time now) {
  auto& [last, since] = conditions_[uid][type];
  if (last != status) {
    last = status;
    since = now;
  }
  return since;
}

void StatusWriter::Forget(const std::string& uid) {
  written_.erase(uid);
  conditions_.erase(uid);
}

}  // namespace carbonroute::controller_runtime
