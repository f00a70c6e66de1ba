// File: contract/value_kind.h
//
// What a carbon-intensity value measures, from the provider's answer through
// the cache to the exported metric: an absolute intensity in gCO2eq/kWh, or
// WattTime's relative 0–100 signal index where no absolute value is licensed
// (https://docs.watttime.org/, /v3/signal-index). The cache stores it as its
// unit text, the only place it is a string.
//
// Thread safety: values and pure functions.
#ifndef CARBONROUTE_CONTRACT_VALUE_KIND_H_
#define CARBONROUTE_CONTRACT_VALUE_KIND_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace carbonroute {

enum class ValueKind {
  kGramsPerKwh,  // absolute intensity, gCO2eq/kWh
  kPercentile,   // relative signal 0–100 (WattTime signal-index)
};

// "gCO2eq/kWh" or "percentile": the cache's `unit` column.
inline absl::string_view ValueKindUnit(ValueKind kind) {
  return kind == ValueKind::kPercentile ? "percentile" : "gCO2eq/kWh";
}

// The inverse of ValueKindUnit; nullopt for any other text.
inline std::optional<ValueKind> ParseValueKindUnit(absl::string_view unit) {
  if (unit == "gCO2eq/kWh") return ValueKind::kGramsPerKwh;
  if (unit == "percentile") return ValueKind::kPercentile;
  return std::nullopt;
}

}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_VALUE_KIND_H_
