// File: routing/locality_weights.h
//
// One origin's row of a routing weight matrix, as Istio's
// `localityLbSetting.distribute[].to` takes it: integer percentages that sum
// to exactly 100, each 1–100, a locality left out getting nothing
// (istio/api networking/v1alpha3/destination_rule.proto, LocalityLoadBalancerSetting.Distribute;
// https://istio.io/latest/docs/reference/config/networking/destination-rule/#LocalityLoadBalancerSetting-Distribute).
//
// PercentWeights turns shares of any scale (the flows of the placement's
// min-cost flow, requests per second, endpoints) into such a row by the
// largest-remainder method (Hamilton's): each destination first gets the
// floor of 100 × share / total; the points left go one each to the largest
// remainders, a tie going to the smaller RTT from the origin, then to the
// smaller locality name; a destination left at 0 is left out of the row. So
// every destination's percentage is within one point of its exact share, the
// row always sums to 100, and the same shares in any order give the same row.
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_ROUTING_LOCALITY_WEIGHTS_H_
#define CARBONROUTE_ROUTING_LOCALITY_WEIGHTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace carbonroute::routing {

// One destination of an origin's traffic: its Istio locality
// ("region/*", "region/zone/*"), its share (≥ 0, any unit: only the ratios
// count) and the RTT from the origin (ties only; absl::InfiniteDuration() when
// unknown, which loses every tie).
struct DestinationShare {
  std::string locality;
  double share = 0;
  absl::Duration rtt = absl::InfiniteDuration();
};

// A destination's integer percentage of the origin's traffic.
struct LocalityWeight {
  std::string locality;
  int percent = 0;

  bool operator==(const LocalityWeight&) const = default;
};

// The row for `shares`, in descending percentage (then ascending RTT, then
// name). kInvalidArgument, naming the field and the value, when `shares` is
// empty, a locality is empty or given twice, a share is negative or not
// finite (or their sum is not), or every share is 0 (the caller then keeps the origin's traffic
// local: "100 % local").
absl::StatusOr<std::vector<LocalityWeight>> PercentWeights(
    const std::vector<DestinationShare>& shares);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_LOCALITY_WEIGHTS_H_
