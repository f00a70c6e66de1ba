// File: contract/emissions_type.h
//
// Average vs marginal emissions: the two kinds of grid carbon-intensity signal.
// "average" is the mean intensity of the electricity generated in a grid zone
// (Electricity Maps, UK Carbon Intensity); "marginal" is the intensity of the
// generator that responds to a change in load (WattTime's MOER).
#ifndef CARBONROUTE_CONTRACT_EMISSIONS_TYPE_H_
#define CARBONROUTE_CONTRACT_EMISSIONS_TYPE_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace carbonroute {

enum class EmissionsType { kAverage, kMarginal };

// "average" or "marginal": the value of the `emissions_type` metric label.
absl::string_view EmissionsTypeName(EmissionsType type);

// Inverse of EmissionsTypeName; std::nullopt for anything else.
std::optional<EmissionsType> ParseEmissionsType(absl::string_view name);

}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_EMISSIONS_TYPE_H_
