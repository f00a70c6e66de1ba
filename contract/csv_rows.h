// File: contract/csv_rows.h
//
// The shared shape of carbonroute's small CSV files (the RTT matrix, the
// region → location map): a header line, then rows of exactly `columns`
// comma-separated cells; blank lines and a trailing '\r' are ignored. No
// quoting: no cell of these files contains a comma.
//
// Errors: kInvalidArgument "origin:line: expected N cells, got M", or the
// first error `row` returns.
// Thread safety: pure function.
#ifndef CARBONROUTE_CONTRACT_CSV_ROWS_H_
#define CARBONROUTE_CONTRACT_CSV_ROWS_H_

#include <cstddef>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace carbonroute {

// Calls `row(line_number, cells)` (1-based line numbers) for every data row.
absl::Status ForEachCsvRow(
    absl::string_view csv, absl::string_view origin, std::size_t columns,
    const std::function<absl::Status(std::size_t, const std::vector<absl::string_view>&)>& row);

}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_CSV_ROWS_H_
