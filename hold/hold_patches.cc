#include "hold/hold_patches.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "kube/kube_client.h"

namespace carbonroute::hold {
namespace {

using Json = nlohmann::ordered_json;

// RFC 6901: '~' → "~0", '/' → "~1".
std::string Pointer(absl::string_view key) {
  return absl::StrReplaceAll(key, {{"~", "~0"}, {"/", "~1"}});
}

Json ReleaseAnnotations(const HoldPlan& plan, absl::Time now,
                        std::optional<double> intensity_at_release) {
  Json annotations = {{kReleasedAtAnnotation, AnnotationTime(now)},
                      {kReleaseReasonAnnotation, std::string(ReasonName(plan.reason))}};
  if (intensity_at_release) {
    annotations[kReleaseIntensityAnnotation] = AnnotationIntensity(*intensity_at_release);
  }
  if (!plan.location.empty()) annotations[kReleaseLocationAnnotation] = plan.location;
  return annotations;
}

}  // namespace

std::string AnnotationTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ",
                          absl::Trunc(t - absl::UnixEpoch(), absl::Seconds(1)) + absl::UnixEpoch(),
                          absl::UTCTimeZone());
}

std::string AnnotationIntensity(double grams_per_kwh) {
  return absl::StrFormat("%.1f", grams_per_kwh);
}

Patch PlanPatch(const HoldPlan& plan, std::optional<double> creation_intensity) {
  Json annotations = {{kReleaseAtAnnotation, AnnotationTime(plan.release_at)}};
  if (plan.expected_intensity) {
    annotations[kExpectedIntensityAnnotation] = AnnotationIntensity(*plan.expected_intensity);
  }
  if (creation_intensity) {
    annotations[kCreationIntensityAnnotation] = AnnotationIntensity(*creation_intensity);
  }
  return {kube::kMergePatch, Json{{"metadata", {{"annotations", annotations}}}}.dump()};
}

Patch ReleasePatch(const HeldObject& object, const HoldPlan& plan, absl::Time now,
                   std::optional<double> intensity_at_release) {
  const Json annotations = ReleaseAnnotations(plan, now, intensity_at_release);
  if (object.kind == HeldKind::kJob) {
    return {
        kube::kMergePatch,
        Json{{"metadata", {{"annotations", annotations}}}, {"spec", {{"suspend", false}}}}.dump()};
  }
  const std::string gate = absl::StrFormat("/spec/schedulingGates/%d", object.gate.value_or(0));
  Json ops = Json::array();
  ops.push_back({{"op", "test"}, {"path", gate + "/name"}, {"value", kCleanWindowGate}});
  ops.push_back({{"op", "remove"}, {"path", gate}});
  if (!object.has_annotations) {
    ops.push_back({{"op", "add"}, {"path", "/metadata/annotations"}, {"value", annotations}});
  } else {
    for (const auto& [key, value] : annotations.items()) {
      ops.push_back(
          {{"op", "add"}, {"path", "/metadata/annotations/" + Pointer(key)}, {"value", value}});
    }
  }
  return {kube::kJsonPatch, ops.dump()};
}

}  // namespace carbonroute::hold
