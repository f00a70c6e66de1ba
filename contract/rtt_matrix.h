// File: contract/rtt_matrix.h
//
// The static RTT matrix format, `sending_region,receiving_region,milliseconds`
// with a header line (data/gcp-inter-region-latency-ms.csv): RTTs declared,
// not measured. Read by the collector (its own declared row) and scheduler-lite
// (region-to-region fallback). A pair the file does not list means "no
// measurement", never 0.
//
// Errors: kInvalidArgument "origin:line: ..." for a row without 3 cells or
// with milliseconds that are not a non-negative number.
// Thread safety: pure function.
#ifndef CARBONROUTE_CONTRACT_RTT_MATRIX_H_
#define CARBONROUTE_CONTRACT_RTT_MATRIX_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace carbonroute {

struct RttMatrixEntry {
  std::string sending_region;
  std::string receiving_region;
  absl::Duration rtt;  // rounded to whole microseconds
};

absl::StatusOr<std::vector<RttMatrixEntry>> ParseRttMatrixCsv(absl::string_view csv,
                                                              absl::string_view origin);

}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_RTT_MATRIX_H_
