// File: controller_runtime/absent_collections.h
//
// "The CRD is not installed", said once: a list of a custom resource's
// collection that answers 404 means its CRD is not installed (an optional
// integration: Karmada's ClusterPropagationPolicy, carbonroute's own CRDs
// before they are applied), so there is none of the kind; the controller logs
// it once per collection, at info, and counts no error.
//
// Thread safety: one thread (the controller's loop).
#ifndef CARBONROUTE_CONTROLLER_RUNTIME_ABSENT_COLLECTIONS_H_
#define CARBONROUTE_CONTROLLER_RUNTIME_ABSENT_COLLECTIONS_H_

#include <set>
#include <string>

namespace carbonroute::controller_runtime {

class AbsentCollections {
 public:
  explicit AbsentCollections(std::string controller) : controller_(std::move(controller)) {}
  // The list of `path` (of `kind`s: "CarbonRoutingPolicy") answered 404: says
  // "<controller>: <path> answered 404 (the <kind> CRD is not installed): none"
  // the first time for `path`.
  void Absent(const std::string& path, const std::string& kind);

 private:
  const std::string controller_;
  std::set<std::string> said_;
};

}  // namespace carbonroute::controller_runtime

#endif  // CARBONROUTE_CONTROLLER_RUNTIME_ABSENT_COLLECTIONS_H_
