// File: kube/event_recorder.h
//
// Events (core/v1) about an object, so a controller says what it did where
// `kubectl describe` shows it
// (https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/event-v1/):
//   POST /api/v1/namespaces/{ns}/events
//   {"metadata": {"generateName": "<name>.", "namespace"},
//    "involvedObject": {apiVersion, kind, namespace, name, uid},
//    "type": "Normal"|"Warning", "reason", "message",
//    "source": {"component"}, "reportingComponent", "reportingInstance",
//    "firstTimestamp", "lastTimestamp", "count": 1}
// An object without a namespace (a Node, a cluster-scoped policy) gets its
// Event in "default", as kubectl and client-go's recorder do. Messages longer
// than the API's 1 KiB limit are shortened.
//
// Errors: kube_client.h's (a 403 names the rule: create on events).
// Thread safety: safe for concurrent use (as the client).
#ifndef CARBONROUTE_KUBE_EVENT_RECORDER_H_
#define CARBONROUTE_KUBE_EVENT_RECORDER_H_

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "kube/kube_client.h"

namespace carbonroute::kube {

struct ObjectReference {
  std::string api_version, kind, namespace_name, name, uid;
};

enum class EventType { kNormal, kWarning };

class EventRecorder {
 public:
  // `component`: "carbonroute-hold"; `instance`: this replica (the Pod's name).
  EventRecorder(const KubeClient& client, std::string component, std::string instance)
      : client_(client), component_(std::move(component)), instance_(std::move(instance)) {}

  absl::Status Record(const ObjectReference& object, EventType type, const std::string& reason,
                      const std::string& message, absl::Time now) const;

 private:
  const KubeClient& client_;
  const std::string component_, instance_;
};

}  // namespace carbonroute::kube

#endif  // CARBONROUTE_KUBE_EVENT_RECORDER_H_
