// File: routing/routing_controller.h
//
// `scheduler-lite route --controller`: keeps every CarbonRoutingPolicy's
// DestinationRules weighted toward the cleanest grids within its latency
// limit (docs/routing.md). A kube::Reconciler on the controller loop
// (kube/controller_loop.h: the Lease, lists every `resync` and on a watched
// change, the health answers).
//
// One pass, while leading, after a list of the policies
// (routing/routing_policy.h; none while the CRD is not installed) and of the
// Nodes (kube/kube_node.h):
//   1. one model from the sources `serve` reads (the loader's);
//   2. per policy, per DestinationRule target: GET the rule (404:
//      TargetNotFound); refuse it when it sets failover or lacks
//      outlierDetection (routing/destination_rule_patch.h); count its
//      Service's ready endpoints per locality (routing/service_endpoints.h);
//      plan (routing/route_plan.h); with no reading for any destination keep
//      the rule as it is (DataMissing); else merge-patch its
//      localityLbSetting only when the rows differ from what it holds, with
//      an Event on the policy naming the old and new rows (`dry_run`: the
//      Event alone, WouldChangeWeights);
//   3. a policy without the finalizer kRestoreFinalizer gets it; one being
//      deleted has each rule or route it wrote put back as it was before its
//      first write (kept in an annotation on the object), then loses the
//      finalizer; a rule or route its writer (carbonroute.io/routed-by) no
//      longer targets, or whose writer is gone, is put back the same way (a
//      list of every DestinationRule and HTTPRoute per pass);
//   4. the policy's status (observedGeneration, per target the rows with
//      each destination's intensity, RTT and reason, the conditions Ready,
//      DataMissing, TargetNotFound, FailoverConfigured,
//      OutlierDetectionMissing) through the status subresource, only when it
//      differs from what this replica wrote last (`dry_run`: never).
// Demand: each origin locality's ready endpoints, or with `request_rates`
// (`--prometheus`) the requests per second Istio measured from client Pods
// in each locality (routing/request_demand.h; Pods read with a GET each, once
// per pass). With a ledger, each DestinationRule's pass books the interval
// since its previous one (routing/route_ledger.h).
// An HTTPRoute target (one origin, its Gateway's, in spec.origins): each
// Service backend's ready endpoints per locality (all in its region when the
// Service is labelled topology.kubernetes.io/region), the origin's row split
// over the backends by their endpoints, each backend's weight written by a JSON
// patch (routing/http_route_patch.h) only when it changes, and kept as it is
// by the same rule against flapping over the backends (minStay, the
// tolerance); the first write keeps the weights as they were, for the
// finalizer. With --prometheus, its demand is every request to its backends
// (all from its one origin).
//
// The HTTPRoute part is in routing/http_route_target.cc.
//
// Ownership: borrows every argument. Thread safety: RunOnce/Run on one
// thread; healthy() and turning() from any. Logs through spdlog's default
// logger.
#ifndef CARBONROUTE_ROUTING_ROUTING_CONTROLLER_H_
#define CARBONROUTE_ROUTING_ROUTING_CONTROLLER_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "kube/controller_loop.h"
#include "kube/event_recorder.h"
#include "kube/kube_client.h"
#include "kube/kube_node.h"
#include "kube/lease_election.h"
#include "ledger/ledger.h"
#include "ledger/metered_energy.h"
#include "model_sources/model_loader.h"
#include "routing/http_route_patch.h"
#include "routing/istio_distribute.h"
#include "routing/request_demand.h"
#include "routing/route_ledger.h"
#include "routing/route_plan.h"
#include "routing/routing_metrics.h"
#include "routing/routing_policy.h"
#include "routing/service_endpoints.h"

namespace carbonroute::routing {

// The requests per second each client Pod sends a Service (an instant query of
// istio_requests_total: routing/request_demand.h); errors: the query's.
using RequestRateSource = std::function<absl::StatusOr<ClientRates>(const ServiceRef& service)>;

struct RoutingControllerOptions {
  absl::Duration resync = absl::Minutes(1);
  LocalityLevel level = LocalityLevel::kRegion;
  // Decide as usual; write nothing but Events and the Lease.
  bool dry_run = false;
  // Watch the policies between lists (kube/change_watch.h). Run() only.
  bool watch = false;
  // How long the API server keeps each watch open (timeoutSeconds) before it starts again.
  absl::Duration watch_timeout = kube::kDefaultWatchTimeout;
  // Measured demand (null: each origin's ready endpoints).
  RequestRateSource request_rates;
  // The Service's Pods' measured energy, for the ledger of policies without
  // spec.joulesPerRequest (null: those book nothing; routing/route_ledger.h).
  ledger::PodsMeter pods_meter;
};

using RoutingModelLoader = std::function<model_sources::LoadedModel(absl::Time now)>;

class RoutingController final : private kube::Reconciler {
 public:
  // `lease`: null to act alone. `events`: null to record no Events.
  // `ledger`: null to book nothing (routing/route_ledger.h says what is booked).
  RoutingController(RoutingControllerOptions options, const kube::KubeClient& api,
                    RoutingModelLoader load_model, Clock& clock, RoutingMetrics& metrics,
                    kube::LeaseElection* lease = nullptr,
                    const kube::EventRecorder* events = nullptr, ledger::Ledger* ledger = nullptr);
  ~RoutingController() override;

  void RunOnce() { loop_.RunOnce(); }
  void Run(absl::Notification& stop) { loop_.Run(stop); }
  bool healthy() const { return loop_.healthy(); }
  bool turning() const { return loop_.turning(); }

  // The API path of the HTTPRoute `name` in `ns`.
  static std::string RoutePath(const std::string& ns, const std::string& name);

 private:
  // What reconciling one target came to.
  struct Outcome {
    TargetRef target;
    std::string result;  // kRoutingWrites' result
    std::string reason;  // a condition's reason; "" when written or unchanged
    std::string message;
    std::optional<RoutePlan> plan;
  };
  absl::StatusOr<kube::ListedVersions> List(absl::Time now) override;
  void Reconcile(const kube::ControllerPass& pass) override;
  // An HTTPRoute: its Service backends' weights from its one origin's row.
  Outcome ReconcileRoute(const RoutingPolicy& policy, const TargetRef& target,
                         const placement::PlacementModel& model, absl::Time now);
  absl::StatusOr<EndpointCount> CountServiceEndpoints(const ServiceRef& service);
  // The requests per second to `service` per client locality; nullopt without
  // a request rate source or when it failed (said in the log and metrics).
  std::optional<std::map<std::string, double>> MeasuredDemand(const ServiceRef& service);
  // Books a DestinationRule's interval: `held` ran in it, `planned` is what
  // this pass decided (written, or in a dry run only said).
  // Books an HTTPRoute's interval: `held` ran in it, `planned` is this pass's.
  // What one target serves in a pass: the requests measured per origin (absent: not
  // measured) and the ready endpoint Pods serving them, by namespace.
  struct TargetDemand {
    std::optional<std::map<std::string, double>> requests_per_second;
    std::map<std::string, std::set<std::string>> pods;
  };
  void BookRoute(const RoutingPolicy& policy, const std::string& key, const RoutePlan& plan,
                 const TargetDemand& demand, const std::vector<Backend>& held,
                 const std::vector<Backend>& planned, const RouteKept& kept,
                 const BackendLocalities& per_backend, absl::Time now);
  // Books one target's interval: `ran` held in it; enforced, against `alternative` (the mesh's
  // default); in a dry run, what was `decided` at the previous pass against `ran`.
  void BookTarget(const RoutingPolicy& policy, const std::string& key, const RoutePlan& plan,
                  const TargetDemand& demand, bool moved, OriginShares ran,
                  OriginShares alternative, OriginShares decided, absl::Time now);
  void BookRule(const RoutingPolicy& policy, const TargetRef& target, const RoutePlan& plan,
                const TargetDemand& demand, const std::vector<DistributeRow>& held, bool moved,
                absl::Time now);
  // `outcome` as a refusal of its target (`what`: "DestinationRule shop/web").
  static Outcome Refuse(Outcome outcome, const std::string& what, std::string result,
                        std::string reason, const std::string& message);
  // Writes `body` to the target at `path` with an Event naming `change`
  // ("written"); a dry run says it in an Event only ("unchanged").
  Outcome WriteTarget(Outcome outcome, const std::string& what, const RoutingPolicy& policy,
                      const std::string& path, absl::string_view content_type, std::string body,
                      const std::string& change, absl::Time now);
  // The refusal of a target whose GET failed: 404 TargetNotFound, else Error.
  Outcome RefuseGet(Outcome outcome, const std::string& what, const absl::Status& status);
  Outcome ReconcileTarget(const RoutingPolicy& policy, const TargetRef& target,
                          const placement::PlacementModel& model, absl::Time now);
  void WriteStatus(const RoutingPolicy& policy, const std::vector<Outcome>& outcomes,
                   absl::Time now);
  // A deleted policy: each rule or route it wrote gets back what it held
  // before (RestorePatch, RestoreWeightsPatch), then the finalizer goes.
  void Finalize(const RoutingPolicy& policy);
  // Puts back `original` (what carbonroute kept at its first write) into the target.
  absl::Status Restore(TargetKind kind, const std::string& ns, const std::string& name,
                       const std::string& original);
  void SetFinalizers(const RoutingPolicy& policy, const std::vector<std::string>& finalizers);
  // Every rule or route a policy wrote (carbonroute.io/routed-by) that no
  // live policy targets any more gets back what it held before.
  void ReleaseUntargeted();
  void Event(const RoutingPolicy& policy, kube::EventType type, const std::string& reason,
             const std::string& message, absl::Time now);

  const RoutingControllerOptions options_;
  const kube::KubeClient& api_;
  const RoutingModelLoader load_model_;
  RoutingMetrics& metrics_;
  const kube::EventRecorder* const events_;
  kube::ControllerLoop loop_;

  std::vector<RoutingPolicy> policies_;
  std::map<std::string, kube::KubeNode> nodes_;
  bool crd_absent_said_ = false;
  std::map<std::string, std::string> written_status_;  // policy uid → the status body written
  // policy uid → condition type → {status, since}
  std::map<std::string, std::map<std::string, std::pair<std::string, absl::Time>>> conditions_;
  std::map<std::string, RoutingPolicy> known_;  // uid → the policy, to forget its gauges
  // "policy uid/rule" → origin → when its written row last changed (row_stability.h).
  std::map<std::string, std::map<std::string, absl::Time>> row_changed_;
  std::unique_ptr<RouteLedger> route_ledger_;  // null without a ledger
  // Booking key → the shares decided at its previous pass (the dry run's chosen basis).
  std::map<std::string, OriginShares> would_book_;
  std::map<std::string, std::string> pod_nodes_;  // "namespace/pod" → its Node, this pass
};

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_ROUTING_CONTROLLER_H_
