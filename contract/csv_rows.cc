#include "contract/csv_rows.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace carbonroute {

absl::Status ForEachCsvRow(
    absl::string_view csv, absl::string_view origin, std::size_t columns,
    const std::function<absl::Status(std::size_t, const std::vector<absl::string_view>&)>& row) {
  std::size_t line_number = 0;
  for (absl::string_view line : absl::StrSplit(csv, '\n')) {
    ++line_number;
    line = absl::StripSuffix(line, "\r");
    if (line_number == 1 || line.empty()) continue;  // header
    const std::vector<absl::string_view> cells = absl::StrSplit(line, ',');
    if (cells.size() != columns) {
      return absl::InvalidArgumentError(absl::StrCat(origin, ":", line_number, ": expected ",
                                                     columns, " cells, got ", cells.size()));
    }
    if (absl::Status status = row(line_number, cells); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace carbonroute
