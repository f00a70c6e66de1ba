// File: discovery/kube_api_json.h
//
// The one Node node discovery reads whole, its own (GET /api/v1/nodes/{name}),
// in the shape the API documents
// (https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/),
// through the project's one view of API objects (kube/json_view.h) and the one
// reader of a Node (kube/kube_node.h ReadNode). The NodeList pages and watch
// events are read by kube/list_watch.h (kube/kube_client.h ReadListPage).
// The input is untrusted (fuzzed in test/).
//
// Errors: kInvalidArgument naming the field and what was wrong, e.g.
// "Node: metadata.name: expected a non-empty string".
// Thread safety: pure functions.
#ifndef CARBONROUTE_DISCOVERY_KUBE_API_JSON_H_
#define CARBONROUTE_DISCOVERY_KUBE_API_JSON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/json_view.h"
#include "kube/kube_node.h"

namespace carbonroute::discovery {

absl::StatusOr<kube::KubeNode> ParseNode(absl::string_view json);

}  // namespace carbonroute::discovery

#endif  // CARBONROUTE_DISCOVERY_KUBE_API_JSON_H_
