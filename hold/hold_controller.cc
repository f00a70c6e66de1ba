#include "hold/hold_controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

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

// The start `object`'s annotation shows, if it shows one.
std::optional<absl::Time> PlannedStart(const HeldObject& object) {
  const auto written = object.annotations.find(kReleaseAtAnnotation);
  absl::Time planned;
  std::string error;
  if (written == object.annotations.end() ||
      !absl::ParseTime(absl::RFC3339_full, written->second, &planned, &error)) {
    return std::nullopt;
  }
  return planned;
}

kube::ControllerLoopOptions LoopOptions(const HoldControllerOptions& options) {
  kube::ControllerLoopOptions loop{.resync = options.resync,
                                   .list_while_following = true,
                                   .watch_timeout = options.watch_timeout};
  if (options.watch) {
    for (HeldKind kind : {HeldKind::kJob, HeldKind::kPod}) {
      loop.watched.push_back({std::string(CollectionPath(kind)),
                              absl::StrCat(KindName(kind), "List"), options.selector});
    }
  }
  return loop;
}

}  // namespace

HoldController::HoldController(HoldControllerOptions options,
                               const controller_runtime::Wiring& wiring, ForecastSource& forecasts,
                               HoldMetrics& metrics, ledger::Ledger* ledger)
    : LoopController(LoopOptions(options), wiring),
      options_(std::move(options)),
      api_(wiring.api),
      source_(forecasts),
      metrics_(metrics),
      events_(wiring.events, metrics_.common(), "hold") {
  if (ledger != nullptr) {
    hold_ledger_ = std::make_unique<HoldLedger>(
        *ledger, options_.dry_run ? ledger::LedgerMode::kShadow : ledger::LedgerMode::kEnforced,
        forecasts, options_.power_model);
    if (options_.run_meter) hold_ledger_->SetMeter(options_.run_meter);
  }
}

absl::StatusOr<kube::ListedVersions> HoldController::List(absl::Time /*now*/) {
  std::vector<HeldObject> listed;
  kube::ListedVersions versions;
  for (HeldKind kind : {HeldKind::kJob, HeldKind::kPod}) {
    absl::StatusOr<ObjectList> objects = ListHeld(api_, kind, options_.selector);
    if (!objects.ok()) {
      metrics_.common().Error("list");
      spdlog::warn(absl::StrCat("hold: listing ", KindName(kind), "s: ", objects.status().message(),
                                "; keeping the ", objects_.size(), " objects known"));
      return objects.status();
    }
    versions[std::string(CollectionPath(kind))] = objects->resource_version;
    for (HeldObject& object : objects->items) listed.push_back(std::move(object));
  }
  objects_ = std::move(listed);
  return versions;
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
      metrics_.common().Error("forecast");
      spdlog::warn(absl::StrCat("hold: forecast for ", location, ": ", points.status().message(),
                                forecasts_.contains(location) ? "; keeping the last one" : ""));
    }
  }
}

struct HoldController::Assessment {
  absl::StatusOr<HoldTerms> terms = absl::UnknownError("not read");
  std::vector<std::string> own_locations;  // its own (annotation, selectors); empty: the cluster's
  std::optional<absl::Time> planned;       // the start its annotation shows
  HoldPlan plan;                           // PlanFor's
};

HoldController::Assessment HoldController::Assess(
    const HeldObject& object, const std::map<std::string, std::string>& region_locations) {
  Assessment assessment;
  assessment.terms = ReadHoldTerms(object);
  if (assessment.terms.ok()) {
    assessment.own_locations = LocationsFor(object, *assessment.terms, region_locations, {});
  }
  assessment.planned = PlannedStart(object);
  return assessment;
}

void HoldController::PlanFor(Assessment& assessment, absl::Time now) const {
  assessment.plan =
      PlanRelease(assessment.terms, now, forecasts_,
                  assessment.own_locations.empty() ? cluster_ : assessment.own_locations);
  if (assessment.plan.release_at > now && assessment.planned && *assessment.planned <= now) {
    // Woken a moment after the start it planned, a tie elsewhere can look
    // better than what is left of this window: the plan it showed is kept.
    assessment.plan.release_at = now;
    assessment.plan.expected_intensity = assessment.plan.intensity_if_now;
  }
}

// What one pass does to one object.
struct HoldController::Action {
  HeldObject* object = nullptr;
  HoldPlan plan;
  std::optional<double> at_creation;
  bool first_plan = false;
  bool release = false;
  struct Patch patch;
  absl::StatusOr<net::HttpResponse> response = absl::UnknownError("not sent");
  absl::Status event;  // the release's Event, when one was recorded
};

// The Event `kubectl describe` shows for a release.
absl::Status HoldController::RecordRelease(const Action& action, absl::Time now) const {
  const HeldObject& object = *action.object;
  const HoldPlan& plan = action.plan;
  std::string message = absl::StrCat("released by carbonroute (", ReasonName(plan.reason), ")");
  if (plan.intensity_if_now) {
    absl::StrAppend(&message, " at ", AnnotationIntensity(*plan.intensity_if_now),
                    " gCO2eq/kWh expected over its run");
  }
  if (!plan.location.empty()) absl::StrAppend(&message, " in ", plan.location);
  if (action.at_creation) {
    absl::StrAppend(&message, "; ", AnnotationIntensity(*action.at_creation),
                    " had it started when first planned");
  }
  if (!plan.detail.empty()) absl::StrAppend(&message, " (", plan.detail, ")");
  return events_.Record(
      object.Reference(),
      plan.reason == ReleaseReason::kWindow ? kube::EventType::kNormal : kube::EventType::kWarning,
      "CleanWindowRelease", message, now);
}

std::optional<HoldController::Action> HoldController::Decide(HeldObject& object,
                                                             const Assessment& assessment,
                                                             absl::Time now, bool leading) {
  Action action;
  action.object = &object;
  action.plan = assessment.plan;
  const HoldPlan& plan = action.plan;
  action.at_creation = AnnotatedIntensity(object, kCreationIntensityAnnotation);
  action.first_plan = !action.at_creation.has_value();
  if (action.first_plan) action.at_creation = plan.intensity_if_now;
  if (!leading) return std::nullopt;
  if (plan.release_at > now) {
    const auto written = object.annotations.find(kReleaseAtAnnotation);
    if (written != object.annotations.end() && written->second == AnnotationTime(plan.release_at)) {
      return std::nullopt;  // the plan it shows is still the plan
    }
    action.patch = PlanPatch(plan, action.first_plan ? action.at_creation : std::nullopt);
    return action;
  }
  action.release = true;
  action.patch = ReleasePatch(object, plan, now, plan.intensity_if_now);
  return action;
}

void HoldController::Apply(Action& action, absl::Time now) {
  HeldObject& object = *action.object;
  const HoldPlan& plan = action.plan;
  const absl::StatusOr<net::HttpResponse>& response = action.response;
  if (response.ok() && response->status == 404) {
    spdlog::info(absl::StrCat("hold: ", object.Describe(), " was deleted while held: forgotten"));
    object.uid.clear();  // dropped by RunOnce
    return;
  }
  if (!response.ok() || response->status != 200) {
    metrics_.common().Error("patch");
    spdlog::warn(absl::StrCat("hold: ", object.Describe(), ": ",
                              response.ok()
                                  ? kube::ApiError("PATCH", object.Path(), *response).message()
                                  : response.status().message()));
    loop().ListBy(now + kube::kListRetry);  // it may have changed: look again
    return;
  }
  if (!action.release) {
    object.annotations[kReleaseAtAnnotation] = AnnotationTime(plan.release_at);
    if (action.first_plan && action.at_creation) {
      object.annotations[kCreationIntensityAnnotation] = AnnotationIntensity(*action.at_creation);
    }
    spdlog::info(
        absl::StrCat("hold: ", object.Describe(), " held until ", AnnotationTime(plan.release_at),
                     " in ", plan.location, " (expected ",
                     plan.expected_intensity ? AnnotationIntensity(*plan.expected_intensity) : "?",
                     " gCO2eq/kWh)"));
    return;
  }
  if (plan.reason == ReleaseReason::kInvalid || plan.reason == ReleaseReason::kNoForecast) {
    spdlog::warn(absl::StrCat("hold: ", object.Describe(), " released at once (",
                              ReasonName(plan.reason), "): ", plan.detail));
  }
  events_.Report(action.event, object.Describe());
  const std::optional<double>& at_release = plan.intensity_if_now;
  object.annotations[kReleasedAtAnnotation] = AnnotationTime(now);
  std::optional<double> avoided;
  if (action.at_creation && at_release) avoided = *action.at_creation - *at_release;
  metrics_.Released(object.kind, plan.reason, now - object.created, avoided);
  releases_.push_back({object.Describe(), now, plan, action.at_creation});
  spdlog::info(absl::StrCat(
      "hold: ", object.Describe(), " released (", ReasonName(plan.reason), ")",
      at_release ? absl::StrCat(" at ", AnnotationIntensity(*at_release), " gCO2eq/kWh") : ""));
}

void HoldController::SayWouldHold(const HeldObject& object, const HoldPlan& plan, absl::Time now) {
  if (would_said_.contains(object.uid)) return;
  std::string message;
  if (plan.release_at > now) {
    message = absl::StrCat("carbonroute would hold it until ", AnnotationTime(plan.release_at),
                           " in ", plan.location);
    if (plan.expected_intensity) {
      absl::StrAppend(&message, " (", AnnotationIntensity(*plan.expected_intensity),
                      " gCO2eq/kWh expected over its run");
      if (plan.intensity_if_now) {
        absl::StrAppend(&message, " against ", AnnotationIntensity(*plan.intensity_if_now),
                        " started now");
      }
      absl::StrAppend(&message, ")");
    }
  } else {
    message = absl::StrCat("carbonroute would start it now (", ReasonName(plan.reason), ")");
    if (!plan.detail.empty()) absl::StrAppend(&message, ": ", plan.detail);
  }
  // Said once, when first seen: an unheld object starts at once, so what carbonroute would
  // have done is the plan at its start; later passes only see the time pass.
  if (!would_said_.insert(object.uid).second) return;
  if (hold_ledger_ != nullptr)
    hold_ledger_->WouldStart(object, now, plan.release_at, plan.location);
  spdlog::info(absl::StrCat("hold (dry run): ", object.Describe(), ": ", message));
  events_.Say(object.Reference(), object.Describe(), kube::EventType::kNormal,
              "CleanWindowWouldHold", message, now);
}

void HoldController::Send(std::vector<Action>& actions, absl::Time now) {
  // Releases first, then plans; kConcurrentWrites at a time: a release is due
  // now, and one request's round trip should not delay the next one's.
  std::stable_partition(actions.begin(), actions.end(),
                        [](const Action& action) { return action.release; });
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < actions.size(); i = next++) {
      Action& action = actions[i];
      action.response = api_.Call({.method = "PATCH",
                                   .path = action.object->Path(),
                                   .body = action.patch.body,
                                   .content_type = action.patch.content_type});
      if (action.release && events_.enabled() && action.response.ok() &&
          action.response->status == 200) {
        action.event = RecordRelease(action, now);
      }
    }
  };
  const std::size_t threads = std::min(actions.size(), kConcurrentWrites);
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
}

void HoldController::BookRuns(absl::Time now, bool leading) {
  const bool newly_leading = leading && !was_leading_;
  was_leading_ = leading;
  if (hold_ledger_ == nullptr || !leading) return;
  if (newly_leading) hold_ledger_->LeadingSince(now);
  std::set<std::string> listed;
  for (const HeldObject& object : objects_) {
    if (object.uid.empty()) continue;
    listed.insert(object.uid);
    if (!hold_ledger_->Unrecorded(object)) continue;
    // The one location it could run in, when there is one.
    std::string only;
    absl::StatusOr<HoldTerms> terms = ReadHoldTerms(object);
    const std::vector<std::string> own =
        terms.ok() ? LocationsFor(object, *terms, options_.region_locations, {})
                   : std::vector<std::string>();
    if (own.size() == 1) only = own.front();
    if (own.empty() && cluster_.size() == 1) only = cluster_.front();
    hold_ledger_->Observe(object, only);
  }
  hold_ledger_->KeepOnly(listed);
  hold_ledger_->BookDue(now);
}

void HoldController::Reconcile(const kube::ControllerPass& pass) {
  const absl::Time now = pass.now;
  // One assessment per held object and pass (by position in objects_); the
  // locations they may run in.
  std::map<const HeldObject*, Assessment> assessed;
  std::set<std::string> needed;
  bool needs_cluster = false;
  for (const HeldObject& object : objects_) {
    // A dry run plans the objects it would hold: those not held.
    if (object.held() == options_.dry_run || object.annotations.contains(kReleasedAtAnnotation)) {
      continue;
    }
    Assessment& assessment =
        assessed.emplace(&object, Assess(object, options_.region_locations)).first->second;
    if (!assessment.terms.ok()) continue;
    if (assessment.own_locations.empty()) needs_cluster = true;
    needed.insert(assessment.own_locations.begin(), assessment.own_locations.end());
  }
  if (needs_cluster && now >= cluster_fetched_ + options_.forecast_refresh) {
    cluster_fetched_ = now;
    if (absl::StatusOr<std::vector<std::string>> cluster = source_.Locations(); cluster.ok()) {
      cluster_ = *std::move(cluster);
    } else {
      metrics_.common().Error("forecast");
      spdlog::warn(absl::StrCat("hold: the cluster's locations: ", cluster.status().message()));
    }
  }
  if (needs_cluster) needed.insert(cluster_.begin(), cluster_.end());
  RefreshForecasts(needed, now);

  const bool leading = pass.leading;
  if (!pass.lease_error.empty()) metrics_.common().Error("lease");
  metrics_.common().SetLeader(leading);
  next_release_ = absl::InfiniteFuture();
  std::map<HeldKind, int> held, late;
  std::vector<Action> actions;
  for (HeldObject& object : objects_) {
    if (object.annotations.contains(kReleasedAtAnnotation)) continue;
    if (options_.dry_run) {
      if (object.held()) {
        if (reported_.insert(object.uid).second) {
          spdlog::warn(absl::StrCat("hold (dry run): ", object.Describe(),
                                    " is held, and a dry run releases nothing: release it "
                                    "yourself, or run without --dry-run"));
        }
      } else if (leading) {
        Assessment& assessment = assessed.at(&object);
        PlanFor(assessment, now);
        SayWouldHold(object, assessment.plan, now);
      }
      continue;
    }
    if (!object.held()) {
      if (reported_.insert(object.uid).second) {
        spdlog::warn(absl::StrCat(
            "hold: ", object.Describe(), " opted in but is not held (",
            object.kind == HeldKind::kJob
                ? "create it with spec.suspend: true"
                : absl::StrCat("create it with the scheduling gate ", kCleanWindowGate),
            "): left alone"));
      }
      continue;
    }
    Assessment& assessment = assessed.at(&object);
    PlanFor(assessment, now);
    std::optional<Action> action = Decide(object, assessment, now, leading);
    if (action) actions.push_back(*std::move(action));
  }
  Send(actions, now);
  for (Action& action : actions) Apply(action, now);
  for (HeldObject& object : objects_) {
    // A dry run holds nothing: nothing to wake for, nothing held by it.
    if (options_.dry_run || object.uid.empty() || !object.held() ||
        object.annotations.contains(kReleasedAtAnnotation)) {
      continue;
    }
    ++held[object.kind];
    const Assessment& assessment = assessed.at(&object);  // this pass's, not worked out again
    if (assessment.plan.release_at > now) {
      next_release_ = std::min(next_release_, assessment.plan.release_at);
    }
    if (assessment.planned && *assessment.planned > now) {
      next_release_ = std::min(next_release_, *assessment.planned);
    }
    const absl::StatusOr<HoldTerms>& terms = assessment.terms;
    if (terms.ok() && now >= terms->deadline - terms->runtime) ++late[object.kind];
  }
  std::erase_if(objects_, [](const HeldObject& object) { return object.uid.empty(); });
  if (!would_said_.empty()) {  // forget the objects that are gone
    std::set<std::string> listed;
    for (const HeldObject& object : objects_) listed.insert(object.uid);
    std::erase_if(would_said_, [&listed](const std::string& uid) { return !listed.contains(uid); });
  }
  for (HeldKind kind : {HeldKind::kJob, HeldKind::kPod})
    metrics_.SetHeld(kind, held[kind], late[kind]);
  BookRuns(now, leading);
}

}  // namespace carbonroute::hold
