// File: routing/row_stability.h
//
// No flapping on small changes (the policy's carbonToleranceGramsPerKwh and
// minStay, as the Karmada policy's): which rows the routing controller writes,
// given the rows a DestinationRule holds and the rows just planned
// (docs/routing.md "Against flapping"). Per origin, the row it holds is kept
// while it is still valid (every destination it sends to is still allowed:
// within maxRttMs, with a current reading) and
//   - it changed less than `min_stay` ago (a destination entering or leaving
//     a row stays in or out at least that long), or
//   - the planned row's expected intensity of a request (the weights × the
//     destinations' current intensities) is no more than `tolerance`
//     gCO2eq/kWh below the held row's;
// else the planned row is written and the origin's change time is `now`. An
// origin the plan no longer has (no traffic) is left out; a held row that is
// no longer valid is always replaced.
//
// Keeping a row may leave a destination a little over the capacity the plan
// gave it, within the tolerance's worth of carbon: stability is preferred to
// exactness there.
//
// Thread safety: pure function (it updates `changed`, the caller's).
#ifndef CARBONROUTE_ROUTING_ROW_STABILITY_H_
#define CARBONROUTE_ROUTING_ROW_STABILITY_H_

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "routing/istio_distribute.h"
#include "routing/route_plan.h"

namespace carbonroute::routing {

// `changed`: origin → when its written row last changed (this controller's
// memory; an origin absent is treated as changed long ago).
std::vector<DistributeRow> StableRows(const std::vector<DistributeRow>& held, const RoutePlan& plan,
                                      double tolerance, absl::Duration min_stay, absl::Time now,
                                      std::map<std::string, absl::Time>& changed);

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_ROW_STABILITY_H_
