// File: controller_runtime/object_events.h
//
// A controller's Events about the objects it acts on (kube/event_recorder.h),
// with what every controller does when one cannot be written: the error is
// counted (operation "event", controller_metrics.h) and logged as
// "<controller>: an Event on <object>: <why>"; the controller goes on (an
// Event is information, never a reason to stop a reconcile).
//
// Ownership: borrows the recorder (null: Events are off, as in tests and
// one-shot modes) and the metrics, which must outlive it.
// Thread safety: Record may be called from any thread (the recorder's client
// is thread-safe); Say and Report from any thread (spdlog and the metrics are).
#ifndef CARBONROUTE_CONTROLLER_RUNTIME_OBJECT_EVENTS_H_
#define CARBONROUTE_CONTROLLER_RUNTIME_OBJECT_EVENTS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "controller_runtime/controller_metrics.h"
#include "kube/event_recorder.h"

namespace carbonroute::controller_runtime {

class ObjectEvents {
 public:
  // `controller`: the log lines' prefix ("route", "karmada", "hold").
  ObjectEvents(const kube::EventRecorder* recorder, ControllerMetrics& metrics,
               std::string controller)
      : recorder_(recorder), metrics_(metrics), controller_(std::move(controller)) {}

  bool enabled() const { return recorder_ != nullptr; }
  // Writes the Event; a failure is counted and logged naming `what` (the
  // object as a user reads it: "CarbonRoutingPolicy shop/checkout").
  void Say(const kube::ObjectReference& object, const std::string& what, kube::EventType type,
           const std::string& reason, const std::string& message, absl::Time now);
  // Writes the Event and returns the API's answer, for a caller that writes
  // from worker threads and reports later (Report); OkStatus when Events are off.
  absl::Status Record(const kube::ObjectReference& object, kube::EventType type,
                      const std::string& reason, const std::string& message, absl::Time now) const;
  // A failed Record: counted and logged naming `what`; nothing for OkStatus.
  void Report(const absl::Status& recorded, const std::string& what);

 private:
  const kube::EventRecorder* const recorder_;
  ControllerMetrics& metrics_;
  const std::string controller_;
};

}  // namespace carbonroute::controller_runtime

#endif  // CARBONROUTE_CONTROLLER_RUNTIME_OBJECT_EVENTS_H_
