// File: routing/policy_file.h
//
// What `scheduler-lite route --policy FILE` reads offline: YAML (JSON is YAML
// too), any number of documents, of which exactly one CarbonRoutingPolicy
// (routing_policy.h) and beside it, if the user gives them, the
// DestinationRules and HTTPRoutes it targets and the HTTPRoutes' backend
// Services (their topology.kubernetes.io/region label: where they run,
// offline). Other documents are passed over. Plain scalars are typed by YAML
// 1.2's core schema (null, booleans, integers, floats; the rest strings); a
// quoted scalar stays a string.
//
// Errors: InvalidArgument naming `path`: not YAML (the parser's line), a
// field the CarbonRoutingPolicy CRD's schema does not have (its path, and the
// nearest field's name: the API server would prune it, kubectl refuse it), a
// policy the reader refuses (its field), more than one policy, none.
// Thread safety: a pure function.
#ifndef CARBONROUTE_ROUTING_POLICY_FILE_H_
#define CARBONROUTE_ROUTING_POLICY_FILE_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "routing/routing_policy.h"

namespace carbonroute::routing {

struct PolicyFile {
  RoutingPolicy policy;
  std::map<std::string, std::string> rules;            // DestinationRule name → its JSON
  std::map<std::string, std::string> routes;           // HTTPRoute name → its JSON
  std::map<std::string, std::string> service_regions;  // "namespace/name" → its region label
};

absl::StatusOr<PolicyFile> ReadPolicyFile(const std::string& text, const std::string& path);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_POLICY_FILE_H_
