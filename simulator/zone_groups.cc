#include "simulator/zone_groups.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "contract/csv_rows.h"

namespace carbonroute::simulator {

absl::StatusOr<std::map<std::string, std::set<std::string>>> ParseZoneGroups(
    absl::string_view csv, absl::string_view origin) {
  absl::StatusOr<std::vector<CsvRecord>> records = ReadCsvRecords(csv, origin);
  if (!records.ok()) return records.status();
  if (records->empty()) return absl::InvalidArgumentError(absl::StrCat(origin, ": empty file"));
  const std::vector<std::string>& header = records->front().cells;
  if (header.empty() || header[0] != "zone_code") {
    return absl::InvalidArgumentError(
        absl::StrCat(origin, ":1: the header must start with zone_code"));
  }
  std::map<std::string, std::size_t> columns;  // group → column
  for (const char* group : kZoneGroups) {
    for (std::size_t c = 1; c < header.size(); ++c) {
      if (header[c] == group) columns[group] = c;
    }
    if (!columns.contains(group)) {
      return absl::InvalidArgumentError(
          absl::StrCat(origin, ":1: the header has no column \"", group, "\""));
    }
  }
  std::map<std::string, std::set<std::string>> groups;
  for (const char* group : kZoneGroups) groups[group];
  for (std::size_t i = 1; i < records->size(); ++i) {
    const CsvRecord& record = (*records)[i];
    if (record.cells.size() != header.size()) {
      return absl::InvalidArgumentError(absl::StrCat(origin, ":", record.line, ": ",
                                                     record.cells.size(), " cells, the header has ",
                                                     header.size()));
    }
    for (const auto& [group, column] : columns) {
      if (record.cells[column] == "1") groups[group].emplace(record.cells[0]);
    }
  }
  return groups;
}

}  // namespace carbonroute::simulator
