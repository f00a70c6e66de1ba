// File: discovery/kube_api_json.h
//
// What node discovery reads of a Node (core/v1), in the shape the API
// documents (https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/),
// through the project's one view of API objects (kube/json_view.h) and the one
// reader of a Node (kube/kube_node.h ReadNode):
//   a Node                 GET /api/v1/nodes/{name}, an item of a list, a watch event's object
//   a NodeList page        GET /api/v1/nodes?limit=N[&continue=T]
//                          {"metadata": {"resourceVersion", "continue"}, "items": [Node...]}
// The input is untrusted (fuzzed in test/).
//
// Errors: kInvalidArgument naming the field and what was wrong, e.g.
// "NodeList: items[3].metadata.name: expected a non-empty string".
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

struct NodeListPage {
  std::vector<kube::KubeNode> nodes;
  std::string resource_version;  // of the list: where a watch starts
  std::string continue_token;    // "" on the last page
};

absl::StatusOr<kube::KubeNode> ParseNode(absl::string_view json);
absl::StatusOr<NodeListPage> ParseNodeList(absl::string_view json);

}  // namespace carbonroute::discovery

#endif  // CARBONROUTE_DISCOVERY_KUBE_API_JSON_H_
