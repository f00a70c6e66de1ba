#include "karmada/placement_ledger.h"

namespace carbonroute::karmada {
namespace {

constexpr char kController[] = "karmada";

struct Priced {
  double grams_per_kwh = 0;
  std::optional<absl::Duration> origin_rtt;
};

// The share-weighted intensity (and RTT, when every cluster has one) of
// `shares`; nullopt when a cluster with a share has no reading.
std::optional<Priced> Price(const ClusterShares& shares,
                            const std::map<std::string, ClusterReading>& readings) {
  Priced priced;
  absl::Duration rtt;
  bool every_rtt = true;
  for (const auto& [cluster, share] : shares) {
    if (share <= 0) continue;
    auto it = readings.find(cluster);
    if (it == readings.end()) return std::nullopt;
    priced.grams_per_kwh += share * it->second.grams_per_kwh;
    if (it->second.origin_rtt) {
      rtt += share * *it->second.origin_rtt;
    } else {
      every_rtt = false;
    }
  }
  if (every_rtt && !shares.empty()) priced.origin_rtt = rtt;
  return priced;
}

}  // namespace

ClusterShares SharesOf(const std::vector<std::string>& clusters,
                       const std::map<std::string, int64_t>& weights) {
  ClusterShares shares;
  double total = 0;
  for (const std::string& cluster : clusters) {
    const auto it = weights.find(cluster);
    const double weight =
        weights.empty() ? 1.0 : static_cast<double>(it == weights.end() ? 1 : it->second);
    shares[cluster] += weight;
    total += weight;
  }
  for (auto& [cluster, share] : shares) share /= total;
  return shares;
}

PlacementLedger::PlacementLedger(ledger::Ledger& ledger, ledger::LedgerMode mode,
                                 absl::Duration longest_interval)
    : ledger_(ledger), mode_(mode), intervals_(longest_interval) {}

void PlacementLedger::Book(const PlacementPass& pass, absl::Time now) {
  // One emissions type for every cluster priced; the first one's when they agree.
  std::optional<EmissionsType> type;
  bool mixed = false;
  for (const ClusterShares* shares : {&pass.chosen, &pass.counterfactual}) {
    for (const auto& [cluster, share] : *shares) {
      auto it = pass.readings.find(cluster);
      if (it == pass.readings.end()) continue;
      if (type && *type != it->second.emissions_type) mixed = true;
      if (!type) type = it->second.emissions_type;
    }
  }
  const EmissionsType emissions_type = type.value_or(EmissionsType::kAverage);
  const ledger::LedgerKey key{.controller = kController,
                              .namespace_name = pass.namespace_name,
                              .mode = mode_,
                              .emissions_type = emissions_type};
  ledger_.Decided(key, pass.moved ? ledger::kOutcomeMoved : ledger::kOutcomeKept);

  const std::optional<ledger::ClosedInterval> closed = intervals_.Close(pass.policy_uid, now);
  if (!closed) return;
  const absl::Duration interval = closed->length;
  auto skip = [&](absl::string_view reason) {
    ledger_.Skipped(kController, emissions_type, reason);
  };
  if (closed->gap) return skip(ledger::kGap);
  if (!pass.not_booked.empty()) return skip(pass.not_booked);
  if (!pass.watts) return skip(ledger::kUnknownEnergy);
  if (mixed) return skip(ledger::kMixedEmissionsTypes);
  const std::optional<Priced> chosen = Price(pass.chosen, pass.readings);
  const std::optional<Priced> counterfactual = Price(pass.counterfactual, pass.readings);
  if (!chosen || !counterfactual || pass.chosen.empty() || pass.counterfactual.empty()) {
    return skip(ledger::kUnknownIntensity);
  }
  const absl::Status booked =
      ledger_.Accrue(key, {.energy_joules = *pass.watts * absl::ToDoubleSeconds(interval),
                           .energy_source = ledger::EnergySource::kModel,
                           .chosen_grams_per_kwh = chosen->grams_per_kwh,
                           .counterfactual_grams_per_kwh = counterfactual->grams_per_kwh,
                           .chosen_origin_rtt = chosen->origin_rtt,
                           .counterfactual_origin_rtt = counterfactual->origin_rtt});
  if (!booked.ok()) skip(ledger::kUnknownIntensity);
}

bool PlacementLedger::WouldPrice(const std::string& policy_uid, absl::Time now) const {
  return intervals_.WouldPrice(policy_uid, now);
}

}  // namespace carbonroute::karmada
