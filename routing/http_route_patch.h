// File: routing/http_route_patch.h
//
// What the routing controller reads of, and writes into, a Gateway API
// HTTPRoute (gateway.networking.k8s.io/v1;
// https://gateway-api.sigs.k8s.io/reference/spec/#httproute):
//
//   read:  spec.rules[].backendRefs[] {group, kind, name, namespace, weight}:
//          the Service backends (group "" or absent, kind Service or absent),
//          namespace defaulting to the route's, weight to 1;
//   write: each Service backend's weight, an integer 0–1,000,000 read
//          proportionally within its rule (0: no traffic), by a JSON patch
//          (RFC 6902) that first tests each backend's name at its index, so a
//          route edited in between is refused rather than mis-weighted.
//
// Errors: ReadBackends returns kInvalidArgument naming the field for a route
// that is not what the API returns.
// Thread safety: pure functions.
#ifndef CARBONROUTE_ROUTING_HTTP_ROUTE_PATCH_H_
#define CARBONROUTE_ROUTING_HTTP_ROUTE_PATCH_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kube/json_view.h"
#include "routing/locality_weights.h"

namespace carbonroute::routing {

struct Backend {
  std::size_t rule = 0, index = 0;  // spec.rules[rule].backendRefs[index]
  std::string namespace_name, name;
  int64_t weight = 1;
  // "namespace/name": backends are weighted per Service.
  std::string Key() const { return namespace_name + "/" + name; }
};

// The Service backends of `route` (other kinds are left alone).
absl::StatusOr<std::vector<Backend>> ReadBackends(const kube::JsonField& route,
                                                  const std::string& route_namespace);

// Each backend's new weight from `weights` (by Backend::Key(); a backend not
// in it gets 0). A rule whose backends would all get 0 keeps its weights (it
// would serve nothing). Returns the backends with their new weights.
std::vector<Backend> Reweighted(const std::vector<Backend>& backends,
                                const std::map<std::string, int64_t>& weights);

// The JSON patch that writes `backends`' weights.
std::string BackendWeightsPatch(const std::vector<Backend>& backends);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_HTTP_ROUTE_PATCH_H_
