// File: rebalance/cluster_objects.h
//
// The Pods and workloads as the re-placement controller reads them from the
// API's lists (GET /api/v1/pods, /apis/apps/v1/{deployments,statefulsets,
// replicasets}):
//   RebalancePod   what serve --shadow reads of a Pod (extender/pod_watch.h
//                  ReadWatchedPod: its Node, requests, node selector,
//                  affinity, tolerations and delay_<from> labels) and what
//                  decides whether it may move: its controller
//                  (metadata.ownerReferences[controller=true]), creation and
//                  deletion times, Ready, a mirror Pod (annotation
//                  kubernetes.io/config.mirror), local storage (an emptyDir
//                  volume; the descheduler's evictLocalStoragePods rule,
//                  kubernetes-sigs/descheduler README "Pod Evictions");
//   Workload       a Deployment's, StatefulSet's or ReplicaSet's uid, labels,
//                  its Pod template's schedulerName (default-scheduler when
//                  absent, as the API defaults it) and, for a ReplicaSet, its
//                  controller (a Deployment).
// OwnerOf resolves a Pod to the workload a policy selects: its ReplicaSet's
// Deployment when it has one, else its controller.
//
// Errors: kInvalidArgument naming the field for an object without
// metadata.uid (the list fails as every other list does).
// Thread safety: values and pure functions.
#ifndef CARBONROUTE_REBALANCE_CLUSTER_OBJECTS_H_
#define CARBONROUTE_REBALANCE_CLUSTER_OBJECTS_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "extender/pod_ledger.h"
#include "kube/event_recorder.h"
#include "kube/json_view.h"

namespace carbonroute::rebalance {

struct OwnerRef {
  std::string kind, name, uid;
};

struct RebalancePod {
  extender::WatchedPod watched;  // uid, namespace, name, scheduler, node, requests, fit, limits
  std::optional<OwnerRef> controller;
  absl::Time created;
  bool deleting = false;
  bool ready = false;
  bool mirror = false;
  bool local_storage = false;
};

absl::StatusOr<RebalancePod> ReadRebalancePod(const kube::JsonField& pod);

struct Workload {
  std::string kind, namespace_name, name, uid;
  std::map<std::string, std::string> labels;
  std::string scheduler_name;          // the Pod template's
  std::optional<OwnerRef> controller;  // a ReplicaSet's Deployment

  kube::ObjectReference Reference() const;
  std::string Describe() const;  // "Deployment shop/web"
};

// `kind`: "Deployment", "StatefulSet" or "ReplicaSet".
absl::StatusOr<Workload> ReadWorkload(const kube::JsonField& object, const std::string& kind);

// The workload `pod` belongs to, from the workloads by uid: its ReplicaSet's
// Deployment when that is known, else its controller; null for a Pod without
// a controller, or whose controller is not a listed workload (a DaemonSet, a
// Job, a custom controller).
const Workload* OwnerOf(const RebalancePod& pod, const std::map<std::string, Workload>& workloads);

}  // namespace carbonroute::rebalance

#endif  // CARBONROUTE_REBALANCE_CLUSTER_OBJECTS_H_
