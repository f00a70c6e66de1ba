#include "contract/csv_rows.h"

#include <csv.h>

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace carbonroute {
namespace {

// What libcsv's callbacks build: the record being read and those read.
struct Records {
  std::vector<CsvRecord> done;
  CsvRecord open;
  bool in_record = false;
  std::size_t line = 0;  // the physical line being fed
};

void OnField(void* field, std::size_t size, void* data) {
  auto* records = static_cast<Records*>(data);
  if (!records->in_record) {
    records->in_record = true;
    records->open.line = records->line;
  }
  records->open.cells.emplace_back(static_cast<const char*>(field), size);
}

void OnRecordEnd(int /*terminator*/, void* data) {
  auto* records = static_cast<Records*>(data);
  if (!records->in_record) return;  // an empty line
  records->done.push_back(std::move(records->open));
  records->open = CsvRecord();
  records->in_record = false;
}

}  // namespace

absl::StatusOr<std::vector<CsvRecord>> ReadCsvRecords(absl::string_view csv,
                                                      absl::string_view origin) {
  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0) {
    return absl::ResourceExhaustedError(absl::StrCat(origin, ": cannot start the CSV parser"));
  }
  const std::unique_ptr<csv_parser, void (*)(csv_parser*)> owned(&parser, csv_free);
  Records records;
  auto malformed = [&](std::size_t line) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ":", line, ": malformed CSV (",
                                                   csv_strerror(csv_error(&parser)), ")"));
  };
  // Fed a line at a time, so that each record knows the line it starts on.
  for (absl::string_view line : absl::StrSplit(csv, '\n')) {
    ++records.line;
    if (csv_parse(&parser, line.data(), line.size(), OnField, OnRecordEnd, &records) !=
            line.size() ||
        csv_parse(&parser, "\n", 1, OnField, OnRecordEnd, &records) != 1) {
      return malformed(records.line);
    }
  }
  if (csv_fini(&parser, OnField, OnRecordEnd, &records) != 0) {
    return malformed(records.in_record ? records.open.line : records.line);
  }
  return std::move(records.done);
}

absl::Status ForEachCsvRow(
    absl::string_view csv, absl::string_view origin, std::size_t columns,
    const std::function<absl::Status(std::size_t, const std::vector<absl::string_view>&)>& row) {
  absl::StatusOr<std::vector<CsvRecord>> records = ReadCsvRecords(csv, origin);
  if (!records.ok()) return records.status();
  std::vector<absl::string_view> cells;
  for (std::size_t i = 1; i < records->size(); ++i) {  // [0] is the header
    const CsvRecord& record = (*records)[i];
    if (record.cells.size() != columns) {
      return absl::InvalidArgumentError(absl::StrCat(origin, ":", record.line, ": expected ",
                                                     columns, " cells, got ", record.cells.size()));
    }
    cells.assign(record.cells.begin(), record.cells.end());
    if (absl::Status status = row(record.line, cells); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace carbonroute
