// File: ledger/ledger.h
//
// The savings ledger: what carbonroute's decisions did against a stated
// counterfactual, as Prometheus counters with one contract for every
// controller (names: contract/metric_names.h, "The savings ledger";
// docs/metrics.md; what each controller's counterfactual is: docs/savings.md
// "What it saved in your cluster").
//
// A controller accrues, interval by interval, a workload's energy (J) and the
// mean carbon intensity (gCO2eq/kWh) of where or when it ran (basis
// "chosen") and of the alternative it would have had without carbonroute
// (basis "counterfactual"). Each basis's grams are energy / 3.6e6 J/kWh ×
// intensity; the saving is counterfactual − chosen and may be negative (a
// latency limit can make the chosen place dirtier than the alternative): a
// loss is recorded as a loss. An interval whose energy or either intensity is
// unknown adds nothing to either basis and is counted in
// carbonroute_ledger_intervals_skipped_total with its reason, never as 0.
//
// Thread safety: safe for concurrent use (prometheus-cpp's metrics are).
// Ownership: registers its families in the registry given, which must outlive it.
#ifndef CARBONROUTE_LEDGER_LEDGER_H_
#define CARBONROUTE_LEDGER_LEDGER_H_

#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "contract/emissions_type.h"

namespace carbonroute::ledger {

// enforced: carbonroute's decision was applied; shadow: it was only computed
// (`--dry-run`), and "chosen" is what it would have chosen.
enum class LedgerMode { kEnforced, kShadow };
absl::string_view LedgerModeName(LedgerMode mode);  // "enforced", "shadow"

// Where an accrual's energy figure comes from.
enum class EnergySource { kKepler, kDcgm, kModel, kDeclared };
absl::string_view EnergySourceName(EnergySource source);  // "kepler", "dcgm", "model", "declared"

// carbonroute_ledger_decisions_total{outcome}: a decision carbonroute applied (or in
// shadow mode would have) that changed where or when a workload runs, and one that
// kept it as it was.
inline constexpr char kOutcomeMoved[] = "moved";
inline constexpr char kOutcomeKept[] = "kept";
// Reasons of carbonroute_ledger_intervals_skipped_total (and outcomes of a decision
// that could not be booked).
inline constexpr char kNotScored[] = "not_scored";  // a Pod carbonroute never scored
inline constexpr char kRestart[] = "restart";       // its candidates were lost in a restart
inline constexpr char kNoFit[] = "no_fit";          // it fits no Node
inline constexpr char kUnknownIntensity[] = "unknown_intensity";
inline constexpr char kUnknownEnergy[] = "unknown_energy";
// The interval since the last accrual is longer than the controller can vouch
// for (it was down, or not leading): not booked rather than guessed.
inline constexpr char kGap[] = "gap";
// The readings an interval would be priced at mix average and marginal
// intensities: one series never mixes the two.
inline constexpr char kMixedEmissionsTypes[] = "mixed_emissions_types";

// The labels every series of one accrual shares.
struct LedgerKey {
  std::string controller;      // "karmada", "hold", "extender", "route"
  std::string namespace_name;  // the workload's namespace
  LedgerMode mode = LedgerMode::kEnforced;
  EmissionsType emissions_type = EmissionsType::kAverage;
};

// One interval of one workload.
struct Accrual {
  double energy_joules = 0;
  EnergySource energy_source = EnergySource::kModel;
  // The intensity over the interval where it ran and where the counterfactual
  // would have run it, gCO2eq/kWh (share-weighted means when spread over several).
  double chosen_grams_per_kwh = 0;
  double counterfactual_grams_per_kwh = 0;
  // The RTT from the workload's origin (share-weighted), when it has one.
  std::optional<absl::Duration> chosen_origin_rtt;
  std::optional<absl::Duration> counterfactual_origin_rtt;
};

// Joules in a kilowatt-hour (1 kWh = 1,000 W × 3,600 s).
inline constexpr double kJoulesPerKwh = 3.6e6;

// gCO2eq of `joules` at `grams_per_kwh`.
double Grams(double joules, double grams_per_kwh);

class Ledger {
 public:
  explicit Ledger(prometheus::Registry& registry);

  // Adds `accrual` under `key`. kInvalidArgument, naming the field and the
  // value, for a negative or non-finite energy, intensity or RTT: nothing is
  // added then (the caller counts the interval as skipped).
  absl::Status Accrue(const LedgerKey& key, const Accrual& accrual);
  // One decision with `outcome` (kOutcomeMoved, kOutcomeKept, or a skip reason).
  void Decided(const LedgerKey& key, absl::string_view outcome);
  // One interval that added nothing, with `reason` (kUnknownIntensity, ...).
  void Skipped(const std::string& controller, EmissionsType emissions_type,
               absl::string_view reason);

 private:
  prometheus::Family<prometheus::Counter>& energy_;
  prometheus::Family<prometheus::Counter>& emissions_;
  prometheus::Family<prometheus::Counter>& decisions_;
  prometheus::Family<prometheus::Counter>& skipped_;
  prometheus::Family<prometheus::Counter>& origin_rtt_;
  prometheus::Family<prometheus::Counter>& origin_rtt_accruals_;
};

}  // namespace carbonroute::ledger

#endif  // CARBONROUTE_LEDGER_LEDGER_H_
