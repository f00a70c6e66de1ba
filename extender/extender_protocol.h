// File: extender/extender_protocol.h
//
// The kube-scheduler extender v1 wire format (k8s.io/kube-scheduler/extender/v1,
// types.go, https://github.com/kubernetes/kube-scheduler/blob/master/extender/v1/types.go).
// The Go types have
// no json tags, so the keys are the capitalised Go field names:
//
//   request  ExtenderArgs          {"Pod": {...}, "Nodes": {"items": [...]} | null,
//                                   "NodeNames": ["n1", ...] | null}
//   /filter  ExtenderFilterResult  {"Nodes": ..., "NodeNames": ..., "FailedNodes": {name: msg},
//                                   "FailedAndUnresolvableNodes": {name: msg}, "Error": ""}
//   /prioritize HostPriorityList   [{"Host": "n1", "Score": 0..10}, ...]
//
// nodeCacheCapable: true  → NodeNames only; node → location/region from the
//                           model (carbonroute_node_info, or the region map);
//                   false → the full NodeList: region from the label
//                           topology.kubernetes.io/region or the annotation
//                           node.kubernetes.io/region (GreenCourier), location
//                           from the label carbonroute.io/location; the filter
//                           reply echoes the feasible Node objects unchanged.
// Pod: labels `delay_<from>: "<ms>"` (RTT from node or region <from> to the
// candidate at most that many milliseconds; the edge scheduler's convention)
// and the annotation `carbonroute.io/expected-runtime` (e.g. "2h").
// Latency and carbon exclusions go in FailedAndUnresolvableNodes: preempting
// pods cannot change an RTT or a grid's intensity.
//
// Errors: ParseExtenderArgs returns kInvalidArgument naming the field and the
// value (malformed JSON, wrong types, a delay label that is not a number of
// milliseconds, an expected runtime that is not a duration).
// Thread safety: pure functions.
#ifndef CARBONROUTE_EXTENDER_EXTENDER_PROTOCOL_H_
#define CARBONROUTE_EXTENDER_EXTENDER_PROTOCOL_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "placement/scoring.h"

namespace carbonroute::extender {

// Who the Pod is (for the savings ledger, extender/pod_ledger.h): its
// metadata.uid, namespace and name and its spec.schedulerName ("" when absent).
struct PodIdentity {
  std::string uid, namespace_name, name, scheduler_name;
};

struct ExtenderArgs {
  placement::Workload workload;
  PodIdentity pod;
  std::vector<placement::Candidate> candidates;  // in request order
  bool node_cache_capable = true;                // NodeNames (true) or Nodes (false)
  std::vector<std::string> raw_nodes;            // minified Node objects (Nodes mode), same order
};

absl::StatusOr<ExtenderArgs> ParseExtenderArgs(absl::string_view body);

// A Pod label stating a latency limit, `delay_<from>: "<milliseconds>"`: the
// origin and the limit; nullopt when `key` is not one. kInvalidArgument naming
// the label and the value when the value is not a number of milliseconds ≥ 0
// or the label names no origin. (The extender refuses such a Pod; the Pod
// watch of serve --shadow leaves the limit out.)
absl::StatusOr<std::optional<std::pair<std::string, absl::Duration>>> ReadDelayLabel(
    absl::string_view key, absl::string_view value);

// ExtenderFilterResult for the scores of `args.candidates` (ScoreCompact).
std::string FilterReply(const ExtenderArgs& args, const placement::CompactScores& scores);
// HostPriorityList, in request order, 0–10.
std::string PrioritizeReply(const ExtenderArgs& args, const placement::CompactScores& scores);
// ExtenderFilterResult with only Error set.
std::string FilterErrorReply(absl::string_view error);

// Appends `text` as a JSON string literal (RFC 8259 escapes: \" \\ and control characters).
void AppendJsonString(std::string& out, absl::string_view text);

}  // namespace carbonroute::extender

#endif  // CARBONROUTE_EXTENDER_EXTENDER_PROTOCOL_H_
