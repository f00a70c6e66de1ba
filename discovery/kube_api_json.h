// File: discovery/kube_api_json.h
//
// Pure parsers of the Kubernetes API answers node discovery reads, in the
// shapes the API documents (https://kubernetes.io/docs/reference/using-api/api-concepts/):
//   a Node                 GET /api/v1/nodes/{name}
//   a NodeList page        GET /api/v1/nodes?limit=N[&continue=T]
//                          {"metadata": {"resourceVersion", "continue"}, "items": [Node...]}
//   one watch event        GET /api/v1/nodes?watch=true&resourceVersion=V, one JSON object
//                          per line: {"type": "ADDED"|"MODIFIED"|"DELETED"|"BOOKMARK"|"ERROR",
//                          "object": Node | Status}
//   a Status               the body of an error answer and of an ERROR event
//                          {"kind": "Status", "code": 410, "reason": "Expired", "message"}
// simdjson parses; the input is untrusted (fuzzed in test/).
//
// Errors: kInvalidArgument naming the field and what was wrong, e.g.
// "NodeList: items[3].metadata.name: expected a string".
// Thread safety: pure functions.
#ifndef CARBONROUTE_DISCOVERY_KUBE_API_JSON_H_
#define CARBONROUTE_DISCOVERY_KUBE_API_JSON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "discovery/kube_node.h"

namespace carbonroute::discovery {

struct NodeListPage {
  std::vector<KubeNode> nodes;
  std::string resource_version;  // of the list: where a watch starts
  std::string continue_token;    // "" on the last page
};

struct WatchEvent {
  enum class Type { kAdded, kModified, kDeleted, kBookmark, kError };
  Type type = Type::kAdded;
  KubeNode node;                 // kAdded, kModified, kDeleted
  std::string resource_version;  // the object's metadata.resourceVersion ("" for kError)
  int error_code = 0;            // kError: the Status's code (410: resourceVersion expired)
  std::string error_message;     // kError: the Status's reason and message
};

absl::StatusOr<KubeNode> ParseNode(absl::string_view json);
absl::StatusOr<NodeListPage> ParseNodeList(absl::string_view json);
absl::StatusOr<WatchEvent> ParseWatchEvent(absl::string_view line);
// "reason: message" of a Status body; the body itself, shortened, if it is not one.
std::string DescribeStatus(absl::string_view json);

}  // namespace carbonroute::discovery

#endif  // CARBONROUTE_DISCOVERY_KUBE_API_JSON_H_
