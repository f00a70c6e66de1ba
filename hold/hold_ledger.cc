#include "hold/hold_ledger.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace carbonroute::hold {

void HoldLedger::WouldStart(const HeldObject& object, absl::Time now, absl::Time start,
                            const std::string& location) {
  if (object.started) return;  // it started before carbonroute saw it: nothing to compare
  would_.emplace(object.uid, Would{.seen = now, .start = start, .location = location});
}

bool HoldLedger::Unrecorded(const HeldObject& object) const {
  return object.started && object.finished && *object.finished >= *object.started &&
         *object.finished >= leading_since_ && !recorded_.contains(object.uid);
}

void HoldLedger::Observe(const HeldObject& object, const std::string& only_location) {
  if (!Unrecorded(object)) return;
  Run run{.namespace_name = object.namespace_name,
          .pods = ledger::RunPods(object.kind == HeldKind::kJob, object.name),
          .runtime = *object.finished - *object.started};
  if (object.requests) {
    run.watts = power_model_.Watts(object.requests->per_replica) *
                static_cast<double>(object.requests->replicas);
  }
  if (mode_ == ledger::LedgerMode::kShadow) {
    const auto would = would_.find(object.uid);
    if (would == would_.end()) return;  // its plan was not seen before it ran
    run.location = would->second.location;
    run.chosen_start = would->second.start;
    run.counterfactual_start = *object.started;
    run.moved = would->second.start - would->second.seen >= kMovedAfter;
  } else {
    const auto released = object.annotations.find(kReleasedAtAnnotation);
    if (released == object.annotations.end()) return;  // not released by carbonroute
    const auto location = object.annotations.find(kReleaseLocationAnnotation);
    run.location = location != object.annotations.end() ? location->second : only_location;
    run.chosen_start = *object.started;
    run.counterfactual_start = object.created;
    absl::Time released_at;
    std::string error;
    run.moved = absl::ParseTime(absl::RFC3339_full, released->second, &released_at, &error) &&
                released_at - object.created >= kMovedAfter;
  }
  recorded_.insert(object.uid);
  pending_.emplace(object.uid, std::move(run));
}

void HoldLedger::BookDue(absl::Time now) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    it = Price(it->second, now) ? pending_.erase(it) : std::next(it);
  }
}

void HoldLedger::KeepOnly(const std::set<std::string>& listed_uids) {
  std::erase_if(recorded_, [&](const std::string& uid) { return !listed_uids.contains(uid); });
  std::erase_if(would_, [&](const auto& entry) { return !listed_uids.contains(entry.first); });
}

void HoldLedger::Skip(const Run& run, absl::string_view reason, EmissionsType emissions_type) {
  ledger_.Decided({.controller = kHoldController,
                   .namespace_name = run.namespace_name,
                   .mode = mode_,
                   .emissions_type = emissions_type},
                  reason);
  ledger_.Skipped(kHoldController, emissions_type, reason);
}

bool HoldLedger::Price(const Run& run, absl::Time now) {
  const absl::Time ended = std::max(run.chosen_start, run.counterfactual_start) + run.runtime;
  if (now < ended) return false;  // an interval still to come (shadow: the plan's)
  // What it drew: measured over the hours it really ran, else the model.
  std::vector<ledger::PodEnergy> energy;
  if (meter_) {
    // The hours it really ran: shadow mode's counterfactual, else the chosen ones.
    const absl::Time ran_from =
        mode_ == ledger::LedgerMode::kShadow ? run.counterfactual_start : run.chosen_start;
    if (now < ran_from + run.runtime + ledger::kMeteredRunLag) return false;  // its last minutes
    absl::StatusOr<std::vector<ledger::PodEnergy>> measured =
        meter_(run.namespace_name, run.pods, ran_from, ran_from + run.runtime);
    if (!measured.ok() && now < ended + kPricingGrace) return false;  // asked again
    if (measured.ok()) energy = std::move(*measured);
  }
  if (energy.empty() && run.watts) {
    energy.push_back(
        {*run.watts * absl::ToDoubleSeconds(run.runtime), ledger::EnergySource::kModel});
  }
  if (energy.empty()) {
    Skip(run, ledger::kUnknownEnergy, EmissionsType::kAverage);
    return true;
  }
  if (run.location.empty()) {
    Skip(run, ledger::kUnknownIntensity, EmissionsType::kAverage);
    return true;
  }
  absl::StatusOr<ObservedMean> chosen =
      readings_.Observed(run.location, run.chosen_start, run.chosen_start + run.runtime);
  absl::StatusOr<ObservedMean> counterfactual =
      chosen.ok() ? readings_.Observed(run.location, run.counterfactual_start,
                                       run.counterfactual_start + run.runtime)
                  : chosen.status();
  if (!counterfactual.ok()) {
    if (now < ended + kPricingGrace) return false;  // the readings may still come
    spdlog::warn(absl::StrCat("hold: the savings ledger skips a run in ", run.namespace_name, ": ",
                              counterfactual.status().message()));
    Skip(run, ledger::kUnknownIntensity, EmissionsType::kAverage);
    return true;
  }
  const ledger::LedgerKey key{.controller = kHoldController,
                              .namespace_name = run.namespace_name,
                              .mode = mode_,
                              .emissions_type = chosen->emissions_type};
  if (chosen->emissions_type != counterfactual->emissions_type) {
    Skip(run, ledger::kUnknownIntensity, chosen->emissions_type);
    return true;
  }
  for (const ledger::PodEnergy& part : energy) {
    const absl::Status booked =
        ledger_.Accrue(key, {.energy_joules = part.joules,
                             .energy_source = part.source,
                             .chosen_grams_per_kwh = chosen->grams_per_kwh,
                             .counterfactual_grams_per_kwh = counterfactual->grams_per_kwh});
    if (!booked.ok()) {
      Skip(run, ledger::kUnknownIntensity, chosen->emissions_type);
      return true;
    }
  }
  ledger_.Decided(key, run.moved ? ledger::kOutcomeMoved : ledger::kOutcomeKept);
  return true;
}

}  // namespace carbonroute::hold
