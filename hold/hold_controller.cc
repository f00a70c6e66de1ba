#include "hold/hold_controller.h"

#include <spdlog/spdlog.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hold/hold_patches.h"

namespace carbonroute::hold {
namespace {

std::optional<double> AnnotatedIntensity(const HeldObject& object, const char* annotation) {
  const auto it = object.annotations.find(annotation);
  double value = 0;
  if (it == object.annotations.end() || !absl::SimpleAtod(it->second, &value)) return std::nullopt;
  return value;
}

}  // namespace

HoldController::HoldController(HoldControllerOptions options, KubeApi& api,
                               ForecastSource& forecasts, Clock& clock, HoldMetrics& metrics,
                               LeaseElection* lease)
    : options_(std::move(options)),
      api_(api),
      source_(forecasts),
      clock_(clock),
      metrics_(metrics),
      lease_(lease) {
  resync_seconds_ = std::max<int64_t>(1, absl::ToInt64Seconds(options_.resync));
}

bool HoldController::healthy() const {
  return absl::ToUnixSeconds(clock_.Now()) - last_list_ok_unix_.load() <= 3 * resync_seconds_;
}

void HoldController::List(absl::Time now) {
  std::vector<HeldObject> listed;
  for (HeldKind kind : {HeldKind::kJob, HeldKind::kPod}) {
    absl::StatusOr<std::vector<HeldObject>> objects = ListHeld(api_, kind, options_.selector);
    if (!objects.ok()) {
      metrics_.Error("list");
      spdlog::warn("hold: listing {}s: {}; keeping the {} objects known",
                   std::string(KindName(kind)), std::string(objects.status().message()),
                   objects_.size());
      next_list_ = now + std::min(options_.resync, absl::Seconds(5));
      return;
    }
    for (HeldObject& object : *objects) listed.push_back(std::move(object));
  }
  objects_ = std::move(listed);
  last_list_ok_unix_ = absl::ToUnixSeconds(now);
  next_list_ = now + options_.resync;
}

void HoldController::RefreshForecasts(const std::set<std::string>& needed, absl::Time now) {
  for (const std::string& location : needed) {
    const auto last = fetched_.find(location);
    if (last != fetched_.end() && now < last->second + options_.forecast_refresh) continue;
    fetched_[location] = now;
    absl::StatusOr<std::vector<ForecastPoint>> points = source_.Forecast(location);
    if (points.ok()) {
      forecasts_[location] = *std::move(points);
    } else {
      metrics_.Error("forecast");
      spdlog::warn("hold: forecast for {}: {}{}", location, std::string(points.status().message()),
                   forecasts_.contains(location) ? "; keeping the last one" : "");
    }
  }
}

bool HoldController::Patch(HeldObject& object, const struct Patch& patch, absl::Time now) {
  absl::StatusOr<net::HttpResponse> response =
      api_.Call("PATCH", object.Path(), patch.body, patch.content_type);
  if (response.ok() && response->status == 200) return true;
  if (response.ok() && response->status == 404) {
    spdlog::info("hold: {} was deleted while held: forgotten", object.Describe());
    object.uid.clear();  // dropped by RunOnce
    return false;
  }
  metrics_.Error("patch");
  spdlog::warn(
      "hold: {}: {}", object.Describe(),
      std::string(response.ok() ? UnexpectedStatus("PATCH", object.Path(), *response).message()
                                : response.status().message()));
  next_list_ = std::min(next_list_, now + absl::Seconds(5));  // it may have changed: look again
  return false;
}

bool HoldController::Handle(HeldObject& object, absl::Time now, bool leading) {
  if (object.annotations.contains(kReleasedAtAnnotation)) return false;
  if (!object.held()) {
    if (reported_.insert(object.uid).second) {
      spdlog::warn("hold: {} opted in but is not held ({}): left alone", object.Describe(),
                   object.kind == HeldKind::kJob
                       ? "create it with spec.suspend: true"
                       : absl::StrCat("create it with the scheduling gate ", kCleanWindowGate));
    }
    return false;
  }
  const absl::StatusOr<HoldTerms> terms = ReadHoldTerms(object);
  std::vector<std::string> locations;
  if (terms.ok()) {
    locations = LocationsFor(object, *terms, options_.region_locations, cluster_);
  }
  const HoldPlan plan = PlanRelease(terms, now, forecasts_, locations);
  std::optional<double> at_creation = AnnotatedIntensity(object, kCreationIntensityAnnotation);
  const bool first_plan = !at_creation.has_value();
  if (first_plan) at_creation = plan.intensity_if_now;
  if (plan.release_at > now) {
    next_release_ = std::min(next_release_, plan.release_at);
    const auto written = object.annotations.find(kReleaseAtAnnotation);
    if (leading && (written == object.annotations.end() ||
                    written->second != AnnotationTime(plan.release_at))) {
      if (Patch(object, PlanPatch(plan, first_plan ? at_creation : std::nullopt), now)) {
        object.annotations[kReleaseAtAnnotation] = AnnotationTime(plan.release_at);
        if (first_plan && at_creation) {
          object.annotations[kCreationIntensityAnnotation] = AnnotationIntensity(*at_creation);
        }
        spdlog::info("hold: {} held until {} in {} (expected {} gCO2eq/kWh)", object.Describe(),
                     AnnotationTime(plan.release_at), plan.location,
                     plan.expected_intensity ? AnnotationIntensity(*plan.expected_intensity) : "?");
      }
    }
    return true;
  }
  if (!leading) return true;
  if (plan.reason == ReleaseReason::kInvalid || plan.reason == ReleaseReason::kNoForecast) {
    spdlog::warn("hold: {} released at once ({}): {}", object.Describe(),
                 std::string(ReasonName(plan.reason)), plan.detail);
  }
  const std::optional<double> at_release = plan.intensity_if_now;
  if (!Patch(object, ReleasePatch(object, plan, now, at_release), now)) return !object.uid.empty();
  object.annotations[kReleasedAtAnnotation] = AnnotationTime(now);
  std::optional<double> avoided;
  if (at_creation && at_release) avoided = *at_creation - *at_release;
  metrics_.Released(object.kind, plan.reason, now - object.created, avoided);
  releases_.push_back({object.Describe(), now, plan, at_creation});
  spdlog::info(
      "hold: {} released ({}){}", object.Describe(), std::string(ReasonName(plan.reason)),
      at_release ? absl::StrCat(" at ", AnnotationIntensity(*at_release), " gCO2eq/kWh") : "");
  return false;
}

void HoldController::RunOnce() {
  const absl::Time now = clock_.Now();
  if (now >= next_list_) List(now);
  // The locations the held objects may run in.
  std::set<std::string> needed;
  bool needs_cluster = false;
  for (const HeldObject& object : objects_) {
    if (!object.held() || object.annotations.contains(kReleasedAtAnnotation)) continue;
    absl::StatusOr<HoldTerms> terms = ReadHoldTerms(object);
    if (!terms.ok()) continue;
    const std::vector<std::string> locations =
        LocationsFor(object, *terms, options_.region_locations, {});
    if (locations.empty()) needs_cluster = true;
    needed.insert(locations.begin(), locations.end());
  }
  if (needs_cluster && now >= cluster_fetched_ + options_.forecast_refresh) {
    cluster_fetched_ = now;
    if (absl::StatusOr<std::vector<std::string>> cluster = source_.Locations(); cluster.ok()) {
      cluster_ = *std::move(cluster);
    } else {
      metrics_.Error("forecast");
      spdlog::warn("hold: the cluster's locations: {}", std::string(cluster.status().message()));
    }
  }
  if (needs_cluster) needed.insert(cluster_.begin(), cluster_.end());
  RefreshForecasts(needed, now);

  const bool leading = lease_ == nullptr || lease_->Tick(now);
  if (lease_ != nullptr && !leading && !lease_->last_error().empty()) metrics_.Error("lease");
  metrics_.SetLeader(leading);
  next_release_ = absl::InfiniteFuture();
  std::map<HeldKind, int> held, late;
  for (HeldObject& object : objects_) {
    if (!Handle(object, now, leading)) continue;
    ++held[object.kind];
    if (absl::StatusOr<HoldTerms> terms = ReadHoldTerms(object);
        terms.ok() && now >= terms->deadline - terms->runtime) {
      ++late[object.kind];
    }
  }
  std::erase_if(objects_, [](const HeldObject& object) { return object.uid.empty(); });
  for (HeldKind kind : {HeldKind::kJob, HeldKind::kPod})
    metrics_.SetHeld(kind, held[kind], late[kind]);
}

absl::Time HoldController::NextWake() const {
  // Forecasts are refreshed by the passes the lists make (every resync).
  absl::Time wake = std::min(next_list_, next_release_);
  if (lease_ != nullptr) wake = std::min(wake, lease_->next_tick());
  return wake;
}

void HoldController::Run(absl::Notification& stop) {
  while (!stop.HasBeenNotified()) {
    RunOnce();
    if (clock_.WaitUntil(NextWake(), stop)) return;
  }
}

}  // namespace carbonroute::hold
