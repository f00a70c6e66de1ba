// File: routing/istio_distribute.h
//
// carbonroute's own checker of the rules Istio's validating webhook applies
// to a DestinationRule's `spec.trafficPolicy.loadBalancer.localityLbSetting`,
// so that no weight row the routing controller writes can be refused (or,
// worse, accepted and ignored). The CRD's OpenAPI schema checks only types:
// a `to` map summing to 150, a weight of 0, `distribute` beside `failover`
// all pass it. The rules, from istio/istio pkg/config/validation/agent/validation.go
// (ValidateLocalityLbSetting, validateLocalities) and istio/api
// networking/v1alpha3/destination_rule.proto (LocalityLoadBalancerSetting):
//   - `distribute` may not be set beside `failover`, nor beside
//     `failoverPriority` (the proto: only one of the three; the webhook checks
//     the first pair only, carbonroute refuses both);
//   - each `to` weight is an integer in [1, 100] and each `to` map sums to
//     exactly 100;
//   - a locality is `region`, `region/zone` or `region/zone/subzone`, each part
//     non-empty, with at most one `*`, and only as its last character;
//   - the `to` localities of one row, and the `from` localities of all rows,
//     do not overlap: none equals another or is covered by another's wildcard
//     or shorter prefix (`us-east1/*` covers `us-east1/b`; `*` covers all).
//
// Errors: kInvalidArgument naming the row (`distribute[i]`), the locality and
// the rule, in Istio's words where it has them ("total locality weight 150 !=
// 100"). Thread safety: pure functions.
#ifndef CARBONROUTE_ROUTING_ISTIO_DISTRIBUTE_H_
#define CARBONROUTE_ROUTING_ISTIO_DISTRIBUTE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace carbonroute::routing {

// One `distribute` entry: `from` and its `to` map (locality, weight). A
// weight is int64_t so that a negative or oversized one read from an object
// can be refused as such.
struct DistributeRow {
  std::string from;
  std::vector<std::pair<std::string, int64_t>> to;
};

// The `localityLbSetting` fields the rules look at.
struct LocalityLbSetting {
  std::vector<DistributeRow> distribute;
  bool failover_set = false;           // a non-empty `failover`
  bool failover_priority_set = false;  // a non-empty `failoverPriority`
};

// OK when Istio would take `setting`'s `distribute` as it is written.
absl::Status CheckLocalityLbSetting(const LocalityLbSetting& setting);

// OK when `localities` are well formed and do not overlap (the rule above);
// `where` prefixes the message ("distribute[2].to").
absl::Status CheckLocalities(const std::vector<std::string>& localities, const std::string& where);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_ISTIO_DISTRIBUTE_H_
