// File: routing/route_plan.h
//
// What a CarbonRoutingPolicy decides for its Service's traffic at one time,
// before any write (docs/routing.md):
//
//   destinations  every locality with ready endpoints, and the policy's
//                 localities[] (a locality the cluster cannot see);
//                 capacity = endpoints (or localities[].capacity) × (1 +
//                 headroomPercent / 100);
//   origins       every locality with ready endpoints, demand its endpoints
//                 (what it serves today under Istio's locality-preferred
//                 default), and the policy's origins[] (demand: their own,
//                 default 1 endpoint's worth); with measured requests per
//                 second per client locality (routing/request_demand.h) that
//                 add up to more than 0, every locality with requests instead,
//                 demand its share of the requests × the endpoints' total (so
//                 demand and capacity stay in one unit);
//   readings      each destination's carbon value and each origin's RTT to
//                 it from the placement model, through the extender's own
//                 scoring (placement/scoring.h: the current reading, stale
//                 readings as none; the RTT lookup's rules: measured rows, the
//                 zone pairs, the static matrix, 5 ms within a region);
//   shares        routing/route_flows.h (the simulator's min-cost flow);
//   weights       each origin with traffic gets Istio's row
//                 (routing/locality_weights.h), checked against Istio's rules
//                 (routing/istio_distribute.h).
// With no reading for any destination nothing is decided (`decided` false;
// `without_reading` names them): the mesh keeps what it has.
//
// Errors: kInvalidArgument for a policy that is `invalid` (its message), or
// flows that cannot be made from the input (routing/route_flows.h's);
// kInternal if a row breaks Istio's rules (a bug).
// Thread safety: pure function; borrows the model.
#ifndef CARBONROUTE_ROUTING_ROUTE_PLAN_H_
#define CARBONROUTE_ROUTING_ROUTE_PLAN_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "contract/emissions_type.h"
#include "placement/placement_model.h"
#include "routing/istio_distribute.h"
#include "routing/locality_weights.h"
#include "routing/route_flows.h"
#include "routing/routing_policy.h"

namespace carbonroute::routing {

struct RoutePlan {
  absl::Time at;
  std::vector<RouteRow> rows;                // every origin, its flows and their reasons
  LocalityLbSetting setting;                 // the rows written: origins with traffic
  std::vector<std::string> without_reading;  // destinations with no current reading
  bool decided = false;  // false: no destination had a reading, nothing to write
  // The measured requests per second per origin the demand came from; empty
  // when the demand is the endpoints'.
  std::map<std::string, double> requests_per_second;
  // Each destination with a reading: its emissions type (one series of the
  // ledger never mixes average and marginal).
  std::map<std::string, EmissionsType> emissions_types;
  // Ready endpoints (or localities[].capacity) per destination, before headroom.
  std::map<std::string, double> endpoints;

  // The row written for `origin` in `setting` (null: none), and the weight it
  // gives `destination` (0 when it has none).
  const DistributeRow* RowFrom(const std::string& origin) const;
  int64_t WeightOf(const std::string& origin, const std::string& destination) const;
};

// The expected intensity of a request from `flows.origin` under `row`
// (Σ weight/100 × the destination's intensity), when every destination it
// sends to is allowed and has a reading; nullopt otherwise.
std::optional<double> ExpectedIntensity(const DistributeRow& row, const RouteRow& flows);

// `endpoints`: ready endpoints per locality ("region/*"), as the Service's
// EndpointSlices show them (the one-shot mode passes the policy's localities).
// `endpoints_are_origins`: false for an HTTPRoute, whose one origin is its
// Gateway's (the policy's origins[]), not the localities that serve it.
// `requests_per_second`: measured demand per origin locality (null: none).
absl::StatusOr<RoutePlan> PlanRoutes(
    const RoutingPolicy& policy, const std::map<std::string, double>& endpoints,
    const placement::PlacementModel& model, absl::Time now, bool endpoints_are_origins = true,
    const std::map<std::string, double>* requests_per_second = nullptr);

// The first of the policy's localities and origins (in that order) that gives no `location`
// and whose region the model's region → location map does not know, as a message naming its
// field and the nearest known region ("spec.localities[2].locality: \"europe-wst9/*\": the
// region table has no region europe-wst9 (did you mean europe-west9?); give its grid zone as
// location"); "" when each resolves. Such a locality could never be planned for: no reading.
std::string UnknownLocalityRegion(const RoutingPolicy& policy,
                                  const placement::PlacementModel& model);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_ROUTE_PLAN_H_
