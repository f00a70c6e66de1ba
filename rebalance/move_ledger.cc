#include "rebalance/move_ledger.h"

#include <optional>

#include "absl/strings/str_cat.h"

namespace carbonroute::rebalance {
namespace {

const placement::LocationCarbon* CarbonAt(const placement::PlacementModel& model,
                                          const std::string& location) {
  const uint32_t id = model.LocationId(location);
  return id == placement::PlacementModel::kNone ? nullptr : model.Carbon(id);
}

}  // namespace

double MoveLedger::Start(const std::string& uid, Stay stay, double restart_joules, bool declared,
                         const placement::PlacementModel& model, absl::Time now) {
  stay.last = now;
  const Stay& started = stays_[uid] = std::move(stay);
  const placement::LocationCarbon* chosen = CarbonAt(model, started.chosen_location);
  const ledger::LedgerKey key{
      .controller = kLedgerController,
      .namespace_name = started.namespace_name,
      .mode = started.mode,
      .emissions_type = chosen == nullptr ? EmissionsType::kAverage : chosen->emissions_type};
  if (ledger_ == nullptr) return 0;
  ledger_->Decided(key, started.chosen_location == started.counterfactual_location
                            ? ledger::kOutcomeKept
                            : ledger::kOutcomeMoved);
  if (chosen == nullptr) {
    ledger_->Skipped(kLedgerController, key.emissions_type, ledger::kUnknownIntensity);
    return 0;
  }
  const ledger::Accrual restart{
      .energy_joules = restart_joules,
      .energy_source = declared ? ledger::EnergySource::kDeclared : ledger::EnergySource::kModel,
      .chosen_grams_per_kwh = chosen->grams_per_kwh,
      .counterfactual_grams_per_kwh = 0};
  if (!ledger_->Accrue(key, restart).ok()) {
    ledger_->Skipped(kLedgerController, key.emissions_type, ledger::kUnknownEnergy);
    return 0;
  }
  const double grams = ledger::Grams(restart_joules, chosen->grams_per_kwh);
  metrics_.Gained(started.namespace_name, started.policy, -grams);
  return grams;
}

void MoveLedger::Accrue(const std::set<std::string>& running,
                        const placement::PlacementModel& model, absl::Time now) {
  for (auto it = stays_.begin(); it != stays_.end();) {
    Stay& stay = it->second;
    if (!running.contains(it->first)) {
      it = stays_.erase(it);
      continue;
    }
    const absl::Duration interval = now - stay.last;
    ++it;
    if (interval <= absl::ZeroDuration()) continue;
    stay.last = now;
    if (ledger_ == nullptr) continue;
    const placement::LocationCarbon* chosen = CarbonAt(model, stay.chosen_location);
    const placement::LocationCarbon* counterfactual = CarbonAt(model, stay.counterfactual_location);
    const EmissionsType type = chosen != nullptr ? chosen->emissions_type : EmissionsType::kAverage;
    if (interval > longest_interval_) {
      ledger_->Skipped(kLedgerController, type, ledger::kGap);
      continue;
    }
    if (chosen == nullptr || counterfactual == nullptr) {
      ledger_->Skipped(kLedgerController, type, ledger::kUnknownIntensity);
      continue;
    }
    if (chosen->emissions_type != counterfactual->emissions_type) {
      ledger_->Skipped(kLedgerController, type, ledger::kMixedEmissionsTypes);
      continue;
    }
    const ledger::Accrual accrual{.energy_joules = stay.watts * absl::ToDoubleSeconds(interval),
                                  .energy_source = ledger::EnergySource::kModel,
                                  .chosen_grams_per_kwh = chosen->grams_per_kwh,
                                  .counterfactual_grams_per_kwh = counterfactual->grams_per_kwh};
    const ledger::LedgerKey key{.controller = kLedgerController,
                                .namespace_name = stay.namespace_name,
                                .mode = stay.mode,
                                .emissions_type = type};
    if (!ledger_->Accrue(key, accrual).ok()) {
      ledger_->Skipped(kLedgerController, type, ledger::kUnknownEnergy);
      continue;
    }
    metrics_.Gained(stay.namespace_name, stay.policy,
                    ledger::Grams(accrual.energy_joules, counterfactual->grams_per_kwh) -
                        ledger::Grams(accrual.energy_joules, chosen->grams_per_kwh));
  }
}

}  // namespace carbonroute::rebalance
