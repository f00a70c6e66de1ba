#include "contract/rtt_matrix.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace carbonroute {

absl::StatusOr<std::vector<RttMatrixEntry>> ParseRttMatrixCsv(absl::string_view csv,
                                                              absl::string_view origin) {
  std::vector<RttMatrixEntry> entries;
  std::size_t line_number = 0;
  for (absl::string_view line : absl::StrSplit(csv, '\n')) {
    ++line_number;
    line = absl::StripSuffix(line, "\r");
    if (line_number == 1 || line.empty()) continue;  // header
    std::vector<absl::string_view> cells = absl::StrSplit(line, ',');
    if (cells.size() != 3) {
      return absl::InvalidArgumentError(
          absl::StrCat(origin, ":", line_number, ": expected 3 cells, got ", cells.size()));
    }
    double ms = 0;
    if (!absl::SimpleAtod(cells[2], &ms) || !std::isfinite(ms) || ms < 0) {
      return absl::InvalidArgumentError(absl::StrCat(origin, ":", line_number, ": milliseconds \"",
                                                     cells[2], "\" is not a non-negative number"));
    }
    entries.push_back({std::string(cells[0]), std::string(cells[1]),
                       absl::Microseconds(std::llround(ms * 1000))});
  }
  return entries;
}

}  // namespace carbonroute
