#include "hold/hold_plan.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/duration_text.h"
#include "base/time_weighted_mean.h"
#include "kube/kube_node.h"
#include "placement/best_window.h"

namespace carbonroute::hold {
namespace {

absl::Status AnnotationError(absl::string_view annotation, absl::string_view value,
                             absl::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat(annotation, ": \"", value, "\" is not ", expected));
}

}  // namespace

absl::StatusOr<HoldTerms> ReadHoldTerms(const HeldObject& object) {
  HoldTerms terms;
  const auto runtime = object.annotations.find(kRuntimeAnnotation);
  if (runtime == object.annotations.end()) {
    return absl::InvalidArgumentError(absl::StrCat(kRuntimeAnnotation, " is missing"));
  }
  const std::optional<absl::Duration> runtime_read = ParseDurationText(runtime->second);
  if (runtime_read) terms.runtime = *runtime_read;
  if (!runtime_read || terms.runtime <= absl::ZeroDuration()) {
    return AnnotationError(kRuntimeAnnotation, runtime->second, "a positive duration such as 2h");
  }
  const auto deadline = object.annotations.find(kDeadlineAnnotation);
  if (deadline == object.annotations.end()) {
    return absl::InvalidArgumentError(absl::StrCat(kDeadlineAnnotation, " is missing"));
  }
  const std::optional<absl::Duration> after = ParseDurationText(deadline->second);
  std::string error;
  if (after && *after > absl::ZeroDuration()) {
    terms.deadline = object.created + *after;
  } else if (!absl::ParseTime(absl::RFC3339_full, deadline->second, &terms.deadline, &error)) {
    return AnnotationError(kDeadlineAnnotation, deadline->second,
                           "RFC 3339 (2026-11-26T06:00:00Z) or a duration after creation (12h)");
  }
  if (const auto locations = object.annotations.find(kLocationsAnnotation);
      locations != object.annotations.end()) {
    for (absl::string_view location : absl::StrSplit(locations->second, ',')) {
      location = absl::StripAsciiWhitespace(location);
      if (!location.empty()) terms.locations.emplace_back(location);
    }
    if (terms.locations.empty()) {
      return AnnotationError(kLocationsAnnotation, locations->second,
                             "a comma-separated list of grid locations");
    }
  }
  return terms;
}

std::vector<std::string> LocationsFor(const HeldObject& object, const HoldTerms& terms,
                                      const std::map<std::string, std::string>& region_locations,
                                      const std::vector<std::string>& cluster) {
  if (!terms.locations.empty()) return terms.locations;
  if (const auto location = object.node_selector.find(kube::kLocationLabel);
      location != object.node_selector.end()) {
    return {location->second};
  }
  if (const auto region = object.node_selector.find(kube::kRegionLabel);
      region != object.node_selector.end()) {
    if (const auto found = region_locations.find(region->second); found != region_locations.end()) {
      return {found->second};
    }
  }
  return cluster;
}

absl::string_view ReasonName(ReleaseReason reason) {
  switch (reason) {
    case ReleaseReason::kWindow:
      return "window";
    case ReleaseReason::kDeadline:
      return "deadline";
    case ReleaseReason::kNoForecast:
      return "no_forecast";
    case ReleaseReason::kInvalid:
      return "invalid";
  }
  return "?";
}

HoldPlan PlanRelease(const absl::StatusOr<HoldTerms>& terms, absl::Time now,
                     const Forecasts& forecasts, const std::vector<std::string>& locations) {
  HoldPlan plan;
  plan.release_at = now;
  if (!terms.ok()) {
    plan.reason = ReleaseReason::kInvalid;
    plan.detail = std::string(terms.status().message());
    return plan;
  }
  // A run started now, at the cleanest location whose forecast covers it.
  for (const std::string& location : locations) {
    const auto points = forecasts.find(location);
    if (points == forecasts.end()) continue;
    const std::optional<double> mean = TimeWeightedMean(points->second, now, now + terms->runtime);
    if (mean && (!plan.intensity_if_now || *mean < *plan.intensity_if_now)) {
      plan.intensity_if_now = mean;
    }
  }
  if (now >= terms->deadline - terms->runtime) {
    plan.reason = ReleaseReason::kDeadline;
    plan.detail = "past its latest start";
    return plan;
  }
  std::optional<placement::BestWindow> best;
  for (const std::string& location : locations) {
    const auto points = forecasts.find(location);
    if (points == forecasts.end()) continue;
    absl::StatusOr<placement::BestWindow> window =
        placement::FindBestWindow(points->second, now, terms->runtime, terms->deadline);
    if (!window.ok()) continue;
    if (!best || window->mean_grams_per_kwh < best->mean_grams_per_kwh ||
        (window->mean_grams_per_kwh == best->mean_grams_per_kwh && window->start < best->start)) {
      best = *window;
      plan.location = location;
    }
  }
  if (!best) {
    plan.reason = ReleaseReason::kNoForecast;
    plan.detail = absl::StrCat("no forecast covers a run before the deadline in ",
                               locations.empty() ? "any location" : absl::StrJoin(locations, ", "));
    return plan;
  }
  plan.reason = ReleaseReason::kWindow;
  plan.release_at = best->start;
  plan.expected_intensity = best->mean_grams_per_kwh;
  return plan;
}

}  // namespace carbonroute::hold
