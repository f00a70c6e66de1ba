// File: base/printed_number.h
//
// How carbonroute writes a measured number in JSON: at most 15 significant
// digits, so that arithmetic noise in the last bits of a double (a unit
// conversion, a sum of readings) never shows: 558.5999999999999 is written
// 558.6, 960.5700000000001 is 960.57. Fifteen digits is what a double always
// round-trips through decimal (DBL_DIG, ISO C 5.2.4.2.2), so no value a
// provider gave, nor any gCO2eq/kWh or millisecond a person reads, loses a
// digit. Header-only. Thread safety: pure function.
#ifndef CARBONROUTE_BASE_PRINTED_NUMBER_H_
#define CARBONROUTE_BASE_PRINTED_NUMBER_H_

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"

namespace carbonroute {

// `value` as its 15-significant-digit decimal reads back; non-finite values unchanged.
inline double PrintedNumber(double value) {
  if (!std::isfinite(value)) return value;
  double printed = value;
  return absl::SimpleAtod(absl::StrFormat("%.15g", value), &printed) ? printed : value;
}

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_PRINTED_NUMBER_H_
