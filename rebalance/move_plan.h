// File: rebalance/move_plan.h
//
// Where a running Pod could go, by the rules `serve --shadow` applies
// (extender/node_fit.h: Ready and schedulable Nodes, its nodeSelector and
// required node affinity, NoSchedule/NoExecute taints tolerated, its CPU and
// memory requests beside what is bound there; placement/scoring.h: its
// delay_<from> limits, a carbon value per grid location), and whether moving
// it there pays (placement/move_payback.h).
//
// PlanPod scores the Pod's own Node and every other Node it fits with the
// current readings (no expected runtime) and takes the cleanest feasible one
// (the extender's first choice with serve's default tolerance of 0: the Node
// its replacement would be bound to), its intensity now and its forecast
// means. `used` is what the Pods bound to each Node request (the Pod's own
// Node includes the Pod itself, which it would leave).
//
// Thread safety: pure functions over borrowed values.
#ifndef CARBONROUTE_REBALANCE_MOVE_PLAN_H_
#define CARBONROUTE_REBALANCE_MOVE_PLAN_H_

#include <map>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "extender/node_fit.h"
#include "extender/pod_ledger.h"
#include "kube/kube_node.h"
#include "kube/pod_requests.h"
#include "placement/move_payback.h"
#include "placement/placement_model.h"

namespace carbonroute::rebalance {

// The cluster's Nodes as a pass knows them.
struct NodeSet {
  std::map<std::string, extender::FitNode> fit;   // by name
  std::map<std::string, kube::KubeNode> places;   // by name: grid location, region
  std::map<std::string, kube::PodRequests> used;  // by name: the bound Pods' requests
};

struct NodeCarbon {
  std::string node, location;
  placement::GridView grid;
  std::optional<absl::Duration> latency;  // the largest RTT from the Pod's origins
};

struct PodPlan {
  std::optional<NodeCarbon> here;  // its own Node, when it has a carbon value
  std::optional<NodeCarbon> best;  // the cleanest other Node it fits within its limits
  std::string why_none;            // why there is no `here` or `best`, for people
};

PodPlan PlanPod(const extender::WatchedPod& pod, const NodeSet& nodes,
                const placement::PlacementModel& model, absl::Time now);

}  // namespace carbonroute::rebalance

#endif  // CARBONROUTE_REBALANCE_MOVE_PLAN_H_
