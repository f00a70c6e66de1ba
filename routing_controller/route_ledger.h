// File: routing_controller/route_ledger.h
//
// What the routing controller books in the savings ledger (ledger/ledger.h),
// one interval per target per pass: the interval from the target's previous
// pass to this one ran under the weights the target held during it
// (docs/savings.md "What it saved in your cluster").
//
//   energy:          per origin, its measured requests per second (Istio's
//                    istio_requests_total through --prometheus,
//                    routing/request_demand.h) × the interval × the policy's
//                    spec.joulesPerRequest (energy_source "declared"); without
//                    it, when a meter is set (route --prometheus), what Kepler
//                    and DCGM measured of the Service's ready endpoint Pods
//                    over the interval (ledger/metered_energy.h), shared over
//                    the origins by their requests (energy_source "kepler",
//                    "dcgm": the Pods' measured energy over their requests);
//   chosen:          enforced, the weights the target held in the interval
//                    (what carbonroute wrote); in shadow mode (--dry-run),
//                    what carbonroute would have written at the previous pass;
//   counterfactual:  enforced, the mesh's default: Istio's locality-preferred
//                    load balancing keeps a request in its origin's locality
//                    while it has healthy endpoints (100 % local); an origin
//                    without endpoints of its own (a gateway's region) spreads
//                    over the destinations by their endpoints; for an
//                    HTTPRoute, the backend weights its owner set (kept when
//                    carbonroute first wrote). In shadow mode, what really ran
//                    (the weights the target held).
// Each basis's intensity per origin is Σ share × the destination's reading at
// the pass that closes the interval (hourly readings, passes every resync),
// its origin RTT Σ share × the RTT from the origin (when every one is known).
//
// Skipped (carbonroute_ledger_intervals_skipped_total{controller="route"}):
// an interval longer than `longest_interval` (down or not leading: kGap);
// without measured requests (no --prometheus, or Prometheus did not answer:
// kUnknownEnergy); an origin whose weights send to a destination without a
// reading (kUnknownIntensity); destinations whose readings mix average and
// marginal; without joulesPerRequest, an interval the meter has nothing for
// (or could not read): kUnknownEnergy. Without joulesPerRequest or a meter a
// policy books nothing (its energy per request is unknown).
//
// Thread safety: one thread (the controller's pass). Ownership: borrows the ledger.
#ifndef CARBONROUTE_ROUTING_CONTROLLER_ROUTE_LEDGER_H_
#define CARBONROUTE_ROUTING_CONTROLLER_ROUTE_LEDGER_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "contract/emissions_type.h"
#include "ledger/ledger.h"
#include "ledger/metered_energy.h"
#include "ledger/pass_intervals.h"
#include "routing/http_route_patch.h"
#include "routing/istio_distribute.h"
#include "routing/route_plan.h"

namespace carbonroute::routing {

// Origin locality → destination locality → its share of the origin's requests
// (each origin's shares sum to 1).
using OriginShares = std::map<std::string, std::map<std::string, double>>;

// Istio's rows as shares (weight / 100).
OriginShares SharesOfRows(const std::vector<DistributeRow>& rows);

// The mesh's default for each of `origins` that `shares` has no row for:
// 100 % local when the origin is among `endpoints` (ready endpoints per
// locality), else spread over `endpoints` by their count.
OriginShares WithMeshDefault(OriginShares shares, const std::vector<std::string>& origins,
                             const std::map<std::string, double>& endpoints);

// An HTTPRoute's Service backends as locality shares: each backend's share of
// the weights (summed over its rules; a backend without endpoints serves
// nothing, so the others share its weight), split over its localities by
// their endpoints. Empty when no backend with endpoints has weight.
std::map<std::string, double> BackendLocalityShares(const std::vector<Backend>& backends,
                                                    const BackendLocalities& localities);

// One target's pass.
struct RouteBooking {
  std::string key;             // the policy's uid and the target: one interval chain each
  std::string namespace_name;  // the policy's (the Service's)
  std::optional<double> joules_per_request;
  // Measured requests per second per origin; absent when not measured.
  std::optional<std::map<std::string, double>> requests_per_second;
  // The ready endpoint Pods serving it, by namespace (its measured energy).
  std::map<std::string, std::set<std::string>> pods;
  OriginShares chosen, counterfactual;
  const RoutePlan* plan = nullptr;  // this pass's readings and RTTs
  bool moved = false;               // the pass wrote (or in shadow mode would write) new weights
};

class RouteLedger {
 public:
  RouteLedger(ledger::Ledger& ledger, ledger::LedgerMode mode, absl::Duration longest_interval);

  // The Pods' measured energy for policies without joulesPerRequest.
  void SetMeter(ledger::PodsMeter meter) { meter_ = std::move(meter); }
  // Books the interval since the target's previous pass (none at its first),
  // and the decision. A booking without joulesPerRequest or a meter books nothing.
  void Book(const RouteBooking& booking, absl::Time now);
  // Targets whose key starts with `prefix` (a deleted policy's uid): their
  // next pass, if they come back, opens a new interval.
  void Forget(const std::string& prefix) { intervals_.Forget(prefix); }

 private:
  ledger::Ledger& ledger_;
  const ledger::LedgerMode mode_;
  ledger::PassIntervals intervals_;  // one chain per booking key
  ledger::PodsMeter meter_;
};

}  // namespace carbonroute::routing

#endif  // CARBONROUTE_ROUTING_CONTROLLER_ROUTE_LEDGER_H_
