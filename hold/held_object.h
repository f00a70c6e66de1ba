// File: hold/held_object.h
//
// What `scheduler-lite hold` reads of the Jobs (batch/v1) and Pods (core/v1)
// that opt in to being held until a clean window, as the API server returns
// them (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/job-v1/,
// .../pod-v1/), and the names it writes back:
//   metadata.{namespace, name, uid, resourceVersion, creationTimestamp, annotations}
//   Job: spec.suspend (held while true: a suspended Job creates no Pods,
//        batch/v1, GA in Kubernetes 1.24) and spec.template.spec.nodeSelector
//   Pod: spec.schedulingGates (held while it lists kCleanWindowGate: a gated
//        Pod stays SchedulingGated, GA in 1.30; gates can only be removed) and
//        spec.nodeSelector
// and, for the savings ledger (hold/hold_ledger.h), how it ran:
//   Job: status.startTime, status.completionTime (or, for a failed Job, its
//        Failed condition's lastTransitionTime), spec.parallelism and the
//        template's requests (kube/pod_requests.h)
//   Pod: status.startTime, status.phase Succeeded or Failed with the latest
//        status.containerStatuses[].state.terminated.finishedAt, its requests
// A list page: {"metadata": {"resourceVersion", "continue"}, "items": [...]}.
// Read through the project's one view of API objects (kube/json_view.h); the
// input is untrusted.
//
// Errors: kInvalidArgument naming the field, e.g. "JobList: items[2].metadata.name: expected a
// non-empty string".
// Thread safety: pure functions and plain values.
#ifndef CARBONROUTE_HOLD_HELD_OBJECT_H_
#define CARBONROUTE_HOLD_HELD_OBJECT_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "contract/api_names.h"
#include "kube/event_recorder.h"
#include "kube/json_view.h"
#include "kube/kube_client.h"
#include "kube/pod_requests.h"

namespace carbonroute::hold {

// The opt-in label (the default --selector is kDeferLabel=true) and the annotations read.
inline constexpr char kDeferLabel[] = "carbonroute.io/defer";
inline constexpr char kDeadlineAnnotation[] = "carbonroute.io/deadline";
inline constexpr const char* kRuntimeAnnotation = api_names::kExpectedRuntimeAnnotation;
inline constexpr char kLocationsAnnotation[] = "carbonroute.io/locations";
inline constexpr char kCleanWindowGate[] = "carbonroute.io/clean-window";
// Written: the plan while held, and what was done at release.
inline constexpr char kReleaseAtAnnotation[] = "carbonroute.io/release-at";
inline constexpr char kExpectedIntensityAnnotation[] = "carbonroute.io/expected-intensity";
inline constexpr char kCreationIntensityAnnotation[] = "carbonroute.io/intensity-at-creation";
inline constexpr char kReleasedAtAnnotation[] = "carbonroute.io/released-at";
inline constexpr char kReleaseReasonAnnotation[] = "carbonroute.io/release-reason";
inline constexpr char kReleaseIntensityAnnotation[] = "carbonroute.io/intensity-at-release";
// The grid location of the window it was released for (read by the savings ledger).
inline constexpr char kReleaseLocationAnnotation[] = "carbonroute.io/release-location";

enum class HeldKind { kJob, kPod };
absl::string_view KindName(HeldKind kind);  // "Job", "Pod"

struct HeldObject {
  HeldKind kind = HeldKind::kJob;
  std::string namespace_name, name, uid, resource_version;
  absl::Time created;
  bool has_annotations = false;  // metadata.annotations is present (a JSON patch adds into it)
  std::map<std::string, std::string> annotations;
  std::map<std::string, std::string> node_selector;
  bool suspended = false;           // Job: spec.suspend
  std::optional<std::size_t> gate;  // Pod: kCleanWindowGate's index in spec.schedulingGates
  // How it ran: absent until it started, and until it finished.
  std::optional<absl::Time> started, finished;
  // What its Pods request, and how many run at once (a Job's parallelism, 1
  // for a Pod); absent when a quantity cannot be read (requests_error says why).
  std::optional<kube::WorkloadRequests> requests;
  std::string requests_error;
  bool held() const { return kind == HeldKind::kJob ? suspended : gate.has_value(); }
  // "Job default/nightly-2941": names the object in logs and events.
  std::string Describe() const;
  // Its API path, e.g. /apis/batch/v1/namespaces/default/jobs/nightly.
  std::string Path() const;
  // The object, as an Event names it (kube/event_recorder.h).
  kube::ObjectReference Reference() const;
};

struct ObjectList {
  std::vector<HeldObject> items;
  std::string resource_version;
  std::string continue_token;  // "" on the last page
};

// One object (an item of a list, a watch event's object).
absl::StatusOr<HeldObject> ReadHeldObject(const kube::JsonField& item, HeldKind kind);

// The collection path of `kind` across namespaces: /apis/batch/v1/jobs, /api/v1/pods.
absl::string_view CollectionPath(HeldKind kind);

// Every object of `kind` the label selector admits, across namespaces, and
// the list's resourceVersion (where a watch starts): kube::ListAll's pages.
// Errors: kube_client.h's; ReadHeldObject's.
absl::StatusOr<ObjectList> ListHeld(const kube::KubeClient& client, HeldKind kind,
                                    const std::string& label_selector, int page_size = 500);

}  // namespace carbonroute::hold

#endif  // CARBONROUTE_HOLD_HELD_OBJECT_H_
