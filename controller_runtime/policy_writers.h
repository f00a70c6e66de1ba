// File: controller_runtime/policy_writers.h
//
// What a controller of policy objects (Karmada's, routing's, re-placement's)
// writes and lists with, built once from its wiring: the Events on its objects
// (object_events.h), their statuses (status_writer.h), and the list of a
// custom resource's collection, where "the CRD is not installed" (a 404) is
// said once and means none of the kind (absent_collections.h); each names
// `controller` in its log lines and counts its failures in `metrics`.
//
// Ownership: borrows the wiring's client and recorder and the metrics.
// Thread safety: one thread (the controller's loop).
#ifndef CARBONROUTE_CONTROLLER_RUNTIME_POLICY_WRITERS_H_
#define CARBONROUTE_CONTROLLER_RUNTIME_POLICY_WRITERS_H_

#include <functional>
#include <string>

#include "controller_runtime/absent_collections.h"
#include "controller_runtime/controller_metrics.h"
#include "controller_runtime/loop_controller.h"
#include "controller_runtime/object_events.h"
#include "controller_runtime/status_writer.h"
#include "kube/controller_loop.h"
#include "kube/json_view.h"
#include "kube/kube_client.h"

namespace carbonroute::controller_runtime {

struct PolicyWriters {
  // `dry_run`: no status is written (Events still are).
  PolicyWriters(const Wiring& wiring, ControllerMetrics& metrics, const std::string& controller,
                bool dry_run)
      : events(wiring.events, metrics, controller),
        status(wiring.api, metrics, controller, dry_run),
        absent(controller),
        api_(wiring.api),
        metrics_(metrics),
        controller_(controller) {}

  // Every page of the custom resource collection `request` names, each item to
  // `on_item` (kube::ListAll). OkStatus when listed (its resourceVersion put in
  // `versions`, where the collection's watch starts) and when it answered 404:
  // its CRD is not installed, said once, none of the kind (kind: request's
  // list_kind without "List"). Any other failure is counted (operation
  // "list"), logged as "<controller>: listing <what>: <why>", and returned.
  absl::Status ListCollection(const kube::ListRequest& request, const std::string& what,
                              const std::function<absl::Status(const kube::JsonField&)>& on_item,
                              const std::function<void()>& on_restart,
                              kube::ListedVersions& versions);

  ObjectEvents events;
  StatusWriter status;
  AbsentCollections absent;

 private:
  const kube::KubeClient& api_;
  ControllerMetrics& metrics_;
  const std::string controller_;
};

}  // namespace carbonroute::controller_runtime

#endif  // CARBONROUTE_CONTROLLER_RUNTIME_POLICY_WRITERS_H_
