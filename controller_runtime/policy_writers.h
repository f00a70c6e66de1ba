// File: controller_runtime/policy_writers.h
//
// What a controller of policy objects (Karmada's, routing's) writes with, built
// once from its wiring: the Events on its objects (object_events.h), their
// statuses (status_writer.h) and "the CRD is not installed" said once
// (absent_collections.h), each naming `controller` in its log lines and
// counting its failures in `metrics`.
//
// Ownership: borrows the wiring's client and recorder and the metrics.
// Thread safety: one thread (the controller's loop).
#ifndef CARBONROUTE_CONTROLLER_RUNTIME_POLICY_WRITERS_H_
#define CARBONROUTE_CONTROLLER_RUNTIME_POLICY_WRITERS_H_

#include <string>

#include "controller_runtime/absent_collections.h"
#include "controller_runtime/controller_metrics.h"
#include "controller_runtime/loop_controller.h"
#include "controller_runtime/object_events.h"
#include "controller_runtime/status_writer.h"

namespace carbonroute::controller_runtime {

struct PolicyWriters {
  // `dry_run`: no status is written (Events still are).
  PolicyWriters(const Wiring& wiring, ControllerMetrics& metrics, const std::string& controller,
                bool dry_run)
      : events(wiring.events, metrics, controller),
        status(wiring.api, metrics, controller, dry_run),
        absent(controller) {}

  ObjectEvents events;
  StatusWriter status;
  AbsentCollections absent;
};

}  // namespace carbonroute::controller_runtime

#endif  // CARBONROUTE_CONTROLLER_RUNTIME_POLICY_WRITERS_H_
