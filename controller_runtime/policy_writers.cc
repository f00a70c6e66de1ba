#include "controller_runtime/policy_writers.h"

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace carbonroute::controller_runtime {

absl::Status PolicyWriters::ListCollection(
    const kube::ListRequest& request, const std::string& what,
    const std::function<absl::Status(const kube::JsonField&)>& on_item,
    const std::function<void()>& on_restart, kube::ListedVersions& versions) {
  absl::StatusOr<kube::ListResult> result = kube::ListAll(api_, request, on_item, on_restart);
  if (result.ok()) {
    versions[request.path] = result->resource_version;
    return absl::OkStatus();
  }
  if (absl::IsNotFound(result.status())) {  // the CRD is not installed: nothing of the kind
    absent.Absent(request.path, std::string(absl::StripSuffix(request.list_kind, "List")));
    return absl::OkStatus();
  }
  metrics_.Error("list");
  spdlog::warn(absl::StrCat(controller_, ": listing ", what, ": ", result.status().message()));
  return result.status();
}

}  // namespace carbonroute::controller_runtime
