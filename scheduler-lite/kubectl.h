// File: scheduler-lite/kubectl.h
//
// Runs kubectl (found on PATH) with the given arguments, for `karmada --apply`.
// Its output goes where scheduler-lite's goes.
//
// Errors: kNotFound when kubectl cannot be started (not on PATH);
// kUnknown "kubectl <verb> exited with N" (or "was killed by signal N").
// Thread safety: safe to call concurrently.
#ifndef CARBONROUTE_SCHEDULER_LITE_KUBECTL_H_
#define CARBONROUTE_SCHEDULER_LITE_KUBECTL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace carbonroute::scheduler_lite {

// `arguments` excludes "kubectl" itself.
absl::Status RunKubectl(const std::vector<std::string>& arguments);

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_KUBECTL_H_
