// File: hold/hold_plan.h
//
// When to release a held Job or Pod (the decision of `scheduler-lite hold`,
// pure: no I/O, no clock of its own).
//
// The terms, from the object's annotations (ReadHoldTerms):
//   carbonroute.io/expected-runtime  a duration (Go/absl syntax: 90m, 2h), > 0
//   carbonroute.io/deadline          RFC 3339, or a duration after metadata.creationTimestamp
//   carbonroute.io/locations         optional: grid locations, comma-separated
// The locations it may run in (LocationsFor): the annotation's; else those
// its node selector names (carbonroute.io/location: a grid location;
// topology.kubernetes.io/region: the region's grid location in the region
// map); else every location of the cluster (the extender then places it at
// the cleanest). Node affinity is not read.
//
// The plan (PlanRelease), fail open and never late: latest = deadline −
// runtime.
//   - terms that cannot be read: release now, reason `invalid`;
//   - now ≥ latest: release now, reason `deadline`;
//   - else the cleanest window of `runtime` that ends by the deadline, over
//     every location's forecast (placement/best_window.h: candidate starts
//     are now and the forecast's point boundaries; ties go to the earliest,
//     then the location's name): release at its start (≤ latest), reason
//     `window`;
//   - no location has a forecast covering a run before the deadline: release
//     now, reason `no_forecast`.
//
// Errors: ReadHoldTerms' kInvalidArgument names the annotation and its value.
// Thread safety: pure functions.
#ifndef CARBONROUTE_HOLD_HOLD_PLAN_H_
#define CARBONROUTE_HOLD_HOLD_PLAN_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "contract/forecast_api.h"
#include "hold/held_object.h"

namespace carbonroute::hold {

struct HoldTerms {
  absl::Time deadline = absl::InfiniteFuture();
  absl::Duration runtime = absl::ZeroDuration();
  std::vector<std::string> locations;  // the annotation's; empty when absent
};
absl::StatusOr<HoldTerms> ReadHoldTerms(const HeldObject& object);

// `region_locations`: region → grid location (data/cloud-regions.csv);
// `cluster`: every grid location the cluster's carbon role exports.
std::vector<std::string> LocationsFor(const HeldObject& object, const HoldTerms& terms,
                                      const std::map<std::string, std::string>& region_locations,
                                      const std::vector<std::string>& cluster);

enum class ReleaseReason { kWindow, kDeadline, kNoForecast, kInvalid };
inline constexpr ReleaseReason kReleaseReasons[] = {
    ReleaseReason::kWindow, ReleaseReason::kDeadline, ReleaseReason::kNoForecast,
    ReleaseReason::kInvalid};
absl::string_view ReasonName(ReleaseReason reason);  // "window", "deadline", ...

struct HoldPlan {
  absl::Time release_at;
  ReleaseReason reason = ReleaseReason::kWindow;
  std::string location;  // the window's ("" without one)
  std::optional<double>
      expected_intensity;                  // forecast mean over the run from release_at, gCO2eq/kWh
  std::optional<double> intensity_if_now;  // a run started now, at the cleanest location
                                           // whose forecast covers it (absent: none does)
  std::string detail;                      // why, for `invalid` and `no_forecast`
};

using Forecasts = std::map<std::string, std::vector<ForecastPoint>, std::less<>>;

// `terms`: ReadHoldTerms' answer (its error makes the plan `invalid`).
HoldPlan PlanRelease(const absl::StatusOr<HoldTerms>& terms, absl::Time now,
                     const Forecasts& forecasts, const std::vector<std::string>& locations);

}  // namespace carbonroute::hold

#endif  // CARBONROUTE_HOLD_HOLD_PLAN_H_
