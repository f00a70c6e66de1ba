#include "contract/rtt_matrix.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "contract/csv_rows.h"

namespace carbonroute {

absl::StatusOr<std::vector<RttMatrixEntry>> ParseRttMatrixCsv(absl::string_view csv,
                                                              absl::string_view origin) {
  std::vector<RttMatrixEntry> entries;
  absl::Status status = ForEachCsvRow(
      csv, origin, 3,
      [&](std::size_t line_number, const std::vector<absl::string_view>& cells) -> absl::Status {
        double ms = 0;
        if (!absl::SimpleAtod(cells[2], &ms) || !std::isfinite(ms) || ms < 0) {
          return absl::InvalidArgumentError(absl::StrCat(origin, ":", line_number,
                                                         ": milliseconds \"", cells[2],
                                                         "\" is not a non-negative number"));
        }
        entries.push_back({std::string(cells[0]), std::string(cells[1]),
                           absl::Microseconds(std::llround(ms * 1000))});
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return entries;
}

}  // namespace carbonroute
