#include "contract/emissions_type.h"

namespace carbonroute {

absl::string_view EmissionsTypeName(EmissionsType type) {
  return type == EmissionsType::kMarginal ? "marginal" : "average";
}

std::optional<EmissionsType> ParseEmissionsType(absl::string_view name) {
  if (name == "average") return EmissionsType::kAverage;
  if (name == "marginal") return EmissionsType::kMarginal;
  return std::nullopt;
}

}  // namespace carbonroute
