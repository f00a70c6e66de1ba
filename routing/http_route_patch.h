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
//          route edited in between is refused rather than mis-weighted;
//   keep:  the first write also keeps the Service backends' weights as they
//          were (kOriginalWeightsAnnotation, JSON: [{rule, index, namespace,
//          name, weight}]) and who wrote (kRoutedByAnnotation,
//          routing/destination_rule_patch.h), so RestoreWeightsPatch can put
//          them back when the policy goes or stops targeting the route.
//
// Errors: ReadBackends returns kInvalidArgument naming the field for a route
// that is not what the API returns; RestoreWeightsPatch kInvalidArgument
// naming the annotation for a kept value that is not what this file wrote.
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
#include "routing/route_flows.h"

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

// Backend key ("namespace/name") → locality → its ready endpoints there.
using BackendLocalities = std::map<std::string, std::map<std::string, double>>;

// An origin's row (its flows per locality) split over the backends: each
// locality's share divided among the backends serving from it by their
// endpoints there, as integer percentages by backend key (PercentWeights:
// its errors, e.g. when no backend gets any traffic).
absl::StatusOr<std::map<std::string, int64_t>> BackendPercents(
    const RouteRow& row, const BackendLocalities& per_backend);

// Each backend's new weight from `weights` (by Backend::Key(); a backend not
// in it gets 0). A rule whose backends would all get 0 keeps its weights (it
// would serve nothing). Returns the backends with their new weights.
std::vector<Backend> Reweighted(const std::vector<Backend>& backends,
                                const std::map<std::string, int64_t>& weights);

inline constexpr char kOriginalWeightsAnnotation[] = "carbonroute.io/original-backend-weights";

// What a route carries of carbonroute's earlier writes.
struct RouteKept {
  std::string original;          // kOriginalWeightsAnnotation ("" when absent)
  std::string routed_by;         // kRoutedByAnnotation ("" when absent)
  bool has_annotations = false;  // metadata.annotations exists
};
RouteKept ReadRouteKept(const kube::JsonField& route);

// The JSON patch that writes `backends`' weights. With `keep` (the first
// write: the backends as they were, and the writer "namespace/policy"), it
// also writes both annotations (`has_annotations`: whether the route has
// metadata.annotations already).
struct KeepWeights {
  const std::vector<Backend>* original = nullptr;
  std::string routed_by;
  bool has_annotations = false;
};
std::string BackendWeightsPatch(const std::vector<Backend>& backends, const KeepWeights& keep = {});

// The backends kept in `original` (kOriginalWeightsAnnotation's value).
absl::StatusOr<std::vector<Backend>> KeptBackends(const std::string& original);

// The JSON patch that puts back the weights kept in `original` (testing each
// backend's name at its index first) and removes both annotations.
absl::StatusOr<std::string> RestoreWeightsPatch(const std::string& original);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_HTTP_ROUTE_PATCH_H_
