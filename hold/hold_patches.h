// File: hold/hold_patches.h
//
// The bodies `scheduler-lite hold` PATCHes (pure):
// - PlanPatch, while an object is held: a JSON merge patch (RFC 7386) of its
//   annotations carbonroute.io/release-at (RFC 3339, UTC), /expected-intensity
//   (the forecast mean over the run from then, gCO2eq/kWh) and, the first time,
//   /intensity-at-creation (the forecast mean of a run started when it was
//   first planned), so `kubectl get -o yaml` shows when it will start.
// - ReleasePatch: a Job gets a merge patch setting spec.suspend to false; a
//   Pod a JSON patch (RFC 6902) that tests that the gate is still at its index
//   and removes only that gate (the API server refuses to add gates after
//   creation, and removes them only this way). Both add
//   carbonroute.io/released-at, /release-reason, /intensity-at-release and
//   /release-location (the grid location of the window).
// Intensities are written with one decimal; absent values are not written.
//
// Thread safety: pure functions.
#ifndef CARBONROUTE_HOLD_HOLD_PATCHES_H_
#define CARBONROUTE_HOLD_HOLD_PATCHES_H_

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "hold/held_object.h"
#include "hold/hold_plan.h"

namespace carbonroute::hold {

struct Patch {
  std::string content_type;  // kube::kMergePatch or kube::kJsonPatch (kube/kube_client.h)
  std::string body;
};

// "2026-11-25T18:00:00Z" (whole seconds, UTC).
std::string AnnotationTime(absl::Time t);
// "123.4".
std::string AnnotationIntensity(double grams_per_kwh);

Patch PlanPatch(const HoldPlan& plan, std::optional<double> creation_intensity);
Patch ReleasePatch(const HeldObject& object, const HoldPlan& plan, absl::Time now,
                   std::optional<double> intensity_at_release);

}  // namespace carbonroute::hold

#endif  // CARBONROUTE_HOLD_HOLD_PATCHES_H_
