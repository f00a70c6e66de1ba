// File: controller_runtime/controller_manager.h
//
// What every long-running controller (hold, karmada --controller, route
// --controller) is given and run by, built once (the shape of
// controller-runtime's manager, https://pkg.go.dev/sigs.k8s.io/controller-runtime/pkg/manager:
// one owner of the client, the Lease, the server, health and the shared
// metrics; reconcilers that only reconcile):
//   - the Kubernetes API client, the metrics registry /metrics serves, the
//     Lease election (with a Lease namespace; none: act alone) and the Event
//     recorder (as `component`, this replica as the instance);
//   - Run: the web server on the listen address (`/` a landing page,
//     `/metrics`, `/healthz` 503 with `unhealthy` while healthy() is false,
//     `/livez` 503 while turning() is false), a log line "<started>; metrics on
//     URL; Lease NS/NAME as ID" (or "acting alone"), the controller until
//     `stop`, then "stopped".
//
// Errors: Run returns 1 when the server cannot listen (logged), else 0.
// Ownership: borrows `http`, which must outlive the manager; owns the rest.
// Thread safety: built and run on one thread; the server's handlers call the
// controller's healthy()/turning() from its own threads.
#ifndef CARBONROUTE_CONTROLLER_RUNTIME_CONTROLLER_MANAGER_H_
#define CARBONROUTE_CONTROLLER_RUNTIME_CONTROLLER_MANAGER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/synchronization/notification.h"
#include "base/clock.h"
#include "controller_runtime/loop_controller.h"
#include "kube/event_recorder.h"
#include "kube/kube_client.h"
#include "kube/kube_connection.h"
#include "kube/lease_election.h"
#include "net/http_client.h"
#include "net/web_config.h"
#include "prometheus/registry.h"

namespace carbonroute::controller_runtime {

struct ManagerOptions {
  std::string component;       // "carbonroute-hold": the Events' source
  kube::LeaseOptions lease;    // namespace_name empty: act alone
  std::string listen_address;  // "127.0.0.1:9466"
  net::WebConfig web;          // TLS and Basic auth of the server
  std::string title;           // "scheduler-lite hold": the landing page's
};

// The controller a manager runs.
struct ManagedController {
  std::function<bool()> healthy, turning;
  std::string unhealthy;  // /healthz's 503: "no successful list of ... in the last three resyncs"
  std::string started;    // the start line: "holding objects selected by ... from ..."
  std::function<void(absl::Notification&)> run;
};

// `controller` (anything with healthy(), turning() and Run(stop): a
// controller on kube/controller_loop.h) as a manager runs it; borrowed.
template <typename Controller>
ManagedController Managed(Controller& controller, const std::string& unhealthy,
                          const std::string& started) {
  return {.healthy = [&controller] { return controller.healthy(); },
          .turning = [&controller] { return controller.turning(); },
          .unhealthy = unhealthy,
          .started = started,
          .run = [&controller](absl::Notification& stop) { controller.Run(stop); }};
}

class ControllerManager {
 public:
  ControllerManager(const kube::KubeConnection& connection, net::HttpClient& http,
                    ManagerOptions options);
  ControllerManager(const ControllerManager&) = delete;
  ControllerManager& operator=(const ControllerManager&) = delete;

  const kube::KubeClient& api() const { return api_; }
  prometheus::Registry& registry() { return *registry_; }
  // The election to give a controller: null to act alone.
  kube::LeaseElection* lease() { return election_ ? &*election_ : nullptr; }
  const kube::EventRecorder* events() const { return &events_; }
  const kube::KubeConnection& connection() const { return connection_; }
  // The client, the Lease and the Events, with `clock`, as a controller takes them.
  Wiring wiring(Clock& clock) { return {api_, clock, lease(), &events_}; }

  int Run(const ManagedController& controller, absl::Notification& stop) const;

 private:
  const ManagerOptions options_;
  const kube::KubeConnection connection_;
  const kube::KubeClient api_;
  const std::shared_ptr<prometheus::Registry> registry_;
  std::optional<kube::LeaseElection> election_;
  const kube::EventRecorder events_;
};

// "; Lease NS/NAME as ID", or "; acting alone (no --lease-namespace)".
std::string DescribeLease(const kube::LeaseOptions& lease);

}  // namespace carbonroute::controller_runtime

#endif  // CARBONROUTE_CONTROLLER_RUNTIME_CONTROLLER_MANAGER_H_
