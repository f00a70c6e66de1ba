// File: controller_runtime/status_writer.h
//
// A controller's writes of its objects' `status` subresource (a merge patch,
// kube/kube_client.h PatchStatus), each written only when it differs from the
// last one this replica wrote for the object (a resync that changes nothing
// writes nothing: no resourceVersion churn, no watch event for the policy's
// own watchers), and the conditions' lastTransitionTime kept: a condition's
// time changes only when its status does (the Kubernetes API conventions,
// https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#typical-status-properties).
//
// Errors: a failed write is counted (operation "status") and logged as
// "<controller>: the status of <object>: <why>", and tried again at the next
// reconcile (nothing is remembered as written).
// Ownership: borrows the client and the metrics, which must outlive it.
// Thread safety: one thread (the controller's loop).
#ifndef CARBONROUTE_CONTROLLER_RUNTIME_STATUS_WRITER_H_
#define CARBONROUTE_CONTROLLER_RUNTIME_STATUS_WRITER_H_

#include <map>
#include <string>
#include <utility>

#include "absl/time/time.h"
#include "controller_runtime/controller_metrics.h"
#include "kube/kube_client.h"

namespace carbonroute::controller_runtime {

class StatusWriter {
 public:
  // `dry_run`: nothing is written (the controller writes only Events).
  StatusWriter(const kube::KubeClient& api, ControllerMetrics& metrics, std::string controller,
               bool dry_run)
      : api_(api), metrics_(metrics), controller_(std::move(controller)), dry_run_(dry_run) {}

  // Writes `body` (the merge patch, {"status": {...}}) to the object at
  // `path` (its path without /status) unless it is what was last written for `uid`.
  // True when the object holds `body` (written now or before); false in a dry
  // run or after a failed write.
  bool Write(const std::string& uid, const std::string& path, const std::string& what,
             const std::string& body);
  // When the condition `type` of `uid` last changed to `status`: `now` when it
  // differs from the status seen last, else the time it took it.
  absl::Time TransitionTime(const std::string& uid, const std::string& type,
                            const std::string& status, absl::Time now);
  // The object is gone: what was written and its conditions' times are dropped.
  void Forget(const std::string& uid);

 private:
  const kube::KubeClient& api_;
  ControllerMetrics& metrics_;
  const std::string controller_;
  const bool dry_run_;
  std::map<std::string, std::string> written_;  // uid → the body written last
  // uid → condition type → (status, since).
  std::map<std::string, std::map<std::string, std::pair<std::string, absl::Time>>> conditions_;
};

}  // namespace carbonroute::controller_runtime

#endif  // CARBONROUTE_CONTROLLER_RUNTIME_STATUS_WRITER_H_
