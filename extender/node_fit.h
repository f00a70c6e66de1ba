// File: extender/node_fit.h
//
// Which Nodes a Pod could have used, as kube-scheduler's default filters
// decide it (https://kubernetes.io/docs/reference/scheduling/config/#scheduling-plugins),
// for `serve --shadow` (extender/shadow_ledger.h). Simulated:
//   NodeUnschedulable  spec.unschedulable is not true, and the Ready condition
//                      is True;
//   NodeAffinity       every spec.nodeSelector label equal, and one of the
//                      required node affinity's nodeSelectorTerms whose every
//                      matchExpression holds (In, NotIn, Exists, DoesNotExist,
//                      Gt, Lt;
//                      https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/);
//   TaintToleration    every NoSchedule and NoExecute taint tolerated (key,
//                      operator Equal or Exists, value, effect; an empty key
//                      with Exists tolerates every taint;
//                      https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/);
//   NodeResourcesFit   the Pod's CPU and memory requests beside the requests of
//                      the Pods already bound there within status.allocatable.
// Not simulated (a shadow choice may be one kube-scheduler would refuse, so
// shadow savings are estimates that may be too high): inter-Pod affinity and
// anti-affinity, topology spread constraints, volume zones and limits, host
// ports, PreferNoSchedule taints, preferred affinity, extended resources.
//
// Errors: ReadFitNode returns kInvalidArgument naming the field for a Node
// without metadata.name or with an allocatable that is not a quantity.
// Thread safety: values and pure functions.
#ifndef CARBONROUTE_EXTENDER_NODE_FIT_H_
#define CARBONROUTE_EXTENDER_NODE_FIT_H_

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kube/json_view.h"
#include "kube/pod_requests.h"

namespace carbonroute::extender {

struct NodeTaint {
  std::string key, value, effect;
};

struct FitNode {
  std::string name;
  std::map<std::string, std::string> labels;
  std::vector<NodeTaint> taints;
  // cpu_cores and memory_bytes; a resource the Node does not report is not checked.
  kube::PodRequests allocatable{.cpu_cores = std::numeric_limits<double>::infinity(),
                                .memory_bytes = std::numeric_limits<double>::infinity()};
  bool ready = false;
  bool unschedulable = false;
};

absl::StatusOr<FitNode> ReadFitNode(const kube::JsonField& node);

struct Toleration {
  std::string key, op, value, effect;  // op "Equal" (the default) or "Exists"
};

struct NodeRequirement {
  std::string key, op;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
};

// What of a Pod's spec decides where it may run.
struct FitPod {
  std::map<std::string, std::string> node_selector;
  std::vector<std::vector<NodeRequirement>> required_terms;  // ORed; each one's requirements ANDed
  std::vector<Toleration> tolerations;
};

// The Pod spec's node selector, required node affinity and tolerations;
// what cannot be read is left out (the Pod fits more Nodes than it should).
FitPod ReadFitPod(const kube::JsonField& pod_spec);

// "" when a Pod with `fit` and `requests` fits `node`, which the Pods bound
// there already request `used` of; else the first filter it fails, said for
// people ("taint dedicated=gpu:NoSchedule not tolerated").
std::string WhyNotFits(const FitPod& fit, const kube::PodRequests& requests, const FitNode& node,
                       const kube::PodRequests& used);

}  // namespace carbonroute::extender

#endif  // CARBONROUTE_EXTENDER_NODE_FIT_H_
