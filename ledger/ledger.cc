#include "ledger/ledger.h"

#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "contract/metric_labels.h"
#include "contract/metric_names.h"

namespace carbonroute::ledger {
namespace {

namespace label = metric_labels;

std::map<std::string, std::string> Labels(const LedgerKey& key) {
  return {{label::kController, key.controller},
          {label::kNamespace, key.namespace_name},
          {label::kMode, std::string(LedgerModeName(key.mode))},
          {label::kEmissionsType, std::string(EmissionsTypeName(key.emissions_type))}};
}

std::map<std::string, std::string> With(std::map<std::string, std::string> labels,
                                        const std::string& name, absl::string_view value) {
  labels[name] = std::string(value);
  return labels;
}

absl::Status Check(absl::string_view field, double value) {
  if (std::isfinite(value) && value >= 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("ledger: ", field, " must be finite and not negative, got ", value));
}

}  // namespace

absl::string_view LedgerModeName(LedgerMode mode) {
  return mode == LedgerMode::kShadow ? "shadow" : "enforced";
}

absl::string_view EnergySourceName(EnergySource source) {
  switch (source) {
    case EnergySource::kKepler:
      return "kepler";
    case EnergySource::kDcgm:
      return "dcgm";
    case EnergySource::kModel:
      return "model";
    case EnergySource::kDeclared:
      return "declared";
  }
  return "model";
}

double Grams(double joules, double grams_per_kwh) { return joules / kJoulesPerKwh * grams_per_kwh; }

Ledger::Ledger(prometheus::Registry& registry)
    : energy_(prometheus::BuildCounter()
                  .Name(metric_names::kLedgerEnergy)
                  .Help("Energy of the workloads carbonroute's decisions placed or timed, J")
                  .Register(registry)),
      emissions_(prometheus::BuildCounter()
                     .Name(metric_names::kLedgerEmissions)
                     .Help("That energy priced where it ran (basis chosen) and where the stated "
                           "counterfactual would have run it, gCO2eq")
                     .Register(registry)),
      decisions_(prometheus::BuildCounter()
                     .Name(metric_names::kLedgerDecisions)
                     .Help("Decisions booked in the ledger, by outcome")
                     .Register(registry)),
      skipped_(prometheus::BuildCounter()
                   .Name(metric_names::kLedgerIntervalsSkipped)
                   .Help("Intervals that added nothing because an intensity or the energy was "
                         "unknown, by reason")
                   .Register(registry)),
      origin_rtt_(prometheus::BuildCounter()
                      .Name(metric_names::kLedgerOriginRtt)
                      .Help("RTT from the workloads' origin, summed over the accruals that have "
                            "one, s")
                      .Register(registry)),
      origin_rtt_accruals_(prometheus::BuildCounter()
                               .Name(metric_names::kLedgerOriginRttAccruals)
                               .Help("Accruals that had an RTT from the workload's origin")
                               .Register(registry)) {}

absl::Status Ledger::Accrue(const LedgerKey& key, const Accrual& accrual) {
  if (absl::Status s = Check("energy_joules", accrual.energy_joules); !s.ok()) return s;
  if (absl::Status s = Check("chosen_grams_per_kwh", accrual.chosen_grams_per_kwh); !s.ok()) {
    return s;
  }
  if (absl::Status s = Check("counterfactual_grams_per_kwh", accrual.counterfactual_grams_per_kwh);
      !s.ok()) {
    return s;
  }
  for (const auto& [field, rtt] :
       {std::pair{"chosen_origin_rtt", accrual.chosen_origin_rtt},
        std::pair{"counterfactual_origin_rtt", accrual.counterfactual_origin_rtt}}) {
    if (!rtt) continue;
    if (absl::Status s = Check(field, absl::ToDoubleSeconds(*rtt)); !s.ok()) return s;
  }
  const std::map<std::string, std::string> labels = Labels(key);
  energy_.Add(With(labels, label::kEnergySource, EnergySourceName(accrual.energy_source)))
      .Increment(accrual.energy_joules);
  emissions_.Add(With(labels, label::kBasis, label::kBasisChosen))
      .Increment(Grams(accrual.energy_joules, accrual.chosen_grams_per_kwh));
  emissions_.Add(With(labels, label::kBasis, label::kBasisCounterfactual))
      .Increment(Grams(accrual.energy_joules, accrual.counterfactual_grams_per_kwh));
  // The latency price only where both bases have an RTT: a mean over different sets
  // of accruals would compare unlike things.
  if (accrual.chosen_origin_rtt && accrual.counterfactual_origin_rtt) {
    for (const auto& [basis, rtt] :
         {std::pair{label::kBasisChosen, *accrual.chosen_origin_rtt},
          std::pair{label::kBasisCounterfactual, *accrual.counterfactual_origin_rtt}}) {
      const auto with_basis = With(labels, label::kBasis, basis);
      origin_rtt_.Add(with_basis).Increment(absl::ToDoubleSeconds(rtt));
      origin_rtt_accruals_.Add(with_basis).Increment();
    }
  }
  return absl::OkStatus();
}

void Ledger::Decided(const LedgerKey& key, absl::string_view outcome) {
  decisions_.Add(With(Labels(key), label::kOutcome, outcome)).Increment();
}

void Ledger::Skipped(const std::string& controller, EmissionsType emissions_type,
                     absl::string_view reason) {
  skipped_
      .Add({{label::kController, controller},
            {label::kEmissionsType, std::string(EmissionsTypeName(emissions_type))},
            {label::kReason, std::string(reason)}})
      .Increment();
}

}  // namespace carbonroute::ledger
