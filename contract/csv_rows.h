// File: contract/csv_rows.h
//
// The one reader of carbonroute's CSV files (the RTT matrix, the region
// tables, the hourly trace, the zone groups): RFC 4180 records
// (https://www.rfc-editor.org/rfc/rfc4180), parsed by libcsv (Debian's
// libcsv3, https://sourceforge.net/projects/libcsv/) in strict mode: a quoted
// field may hold commas, line breaks and doubled quotes ("Duke, South
// Carolina"); spaces and tabs around an unquoted field are dropped; blank
// lines are skipped; a trailing '\r' ends a line as '\n' does.
//
// Errors: kInvalidArgument "origin:line: malformed CSV (<libcsv's reason>)"
// for a quote where none may be or a quoted field left open;
// ForEachCsvRow's "origin:line: expected N cells, got M", or the first error
// `row` returns.
// Thread safety: pure functions.
#ifndef CARBONROUTE_CONTRACT_CSV_ROWS_H_
#define CARBONROUTE_CONTRACT_CSV_ROWS_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace carbonroute {

// One record: the line it starts on (1-based) and its cells, unquoted.
struct CsvRecord {
  std::size_t line = 0;
  std::vector<std::string> cells;
};

// Calls `record(r)` for every record of `csv`, the header included, in order,
// as each one ends, and stops at the first error it returns (that error is
// returned). `r` is valid only during the call: its cells are reused for the
// next record, so a file of a million cells is never held as a million
// strings (the hourly trace: 1,077,480 cells).
absl::Status ForEachCsvRecord(absl::string_view csv, absl::string_view origin,
                              const std::function<absl::Status(const CsvRecord&)>& record);

// Every record of `csv`, the header included.
absl::StatusOr<std::vector<CsvRecord>> ReadCsvRecords(absl::string_view csv,
                                                      absl::string_view origin);

// Calls `row(line_number, cells)` for every record after the header, each of
// exactly `columns` cells.
absl::Status ForEachCsvRow(
    absl::string_view csv, absl::string_view origin, std::size_t columns,
    const std::function<absl::Status(std::size_t, const std::vector<absl::string_view>&)>& row);

}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_CSV_ROWS_H_
