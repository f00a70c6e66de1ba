#include "contract/csv_rows.h"

#include <csv.h>

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace carbonroute {
namespace {

// What libcsv's callbacks fill: the record being read, handed to `record`
// when it ends; the first error it returns stops the reading.
struct Reader {
  const std::function<absl::Status(const CsvRecord&)>* record = nullptr;
  CsvRecord open;
  bool in_record = false;
  std::size_t line = 0;  // the physical line being fed
  absl::Status status;
};

void OnField(void* field, std::size_t size, void* data) {
  auto* reader = static_cast<Reader*>(data);
  if (!reader->in_record) {
    reader->in_record = true;
    reader->open.line = reader->line;
  }
  reader->open.cells.emplace_back(static_cast<const char*>(field), size);
}

void OnRecordEnd(int /*terminator*/, void* data) {
  auto* reader = static_cast<Reader*>(data);
  if (!reader->in_record) return;  // an empty line
  if (reader->status.ok()) reader->status = (*reader->record)(reader->open);
  reader->open.cells.clear();  // keeps the vector's room for the next record
  reader->in_record = false;
}

}  // namespace

absl::Status ForEachCsvRecord(absl::string_view csv, absl::string_view origin,
                              const std::function<absl::Status(const CsvRecord&)>& record) {
  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0) {
    return absl::ResourceExhaustedError(absl::StrCat(origin, ": cannot start the CSV parser"));
  }
  const std::unique_ptr<csv_parser, void (*)(csv_parser*)> owned(&parser, csv_free);
  Reader reader;
  reader.record = &record;
  auto malformed = [&](std::size_t line) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ":", line, ": malformed CSV (",
                                                   csv_strerror(csv_error(&parser)), ")"));
  };
  // Fed a line at a time, so that each record knows the line it starts on.
  for (absl::string_view line : absl::StrSplit(csv, '\n')) {
    ++reader.line;
    if (csv_parse(&parser, line.data(), line.size(), OnField, OnRecordEnd, &reader) !=
            line.size() ||
        csv_parse(&parser, "\n", 1, OnField, OnRecordEnd, &reader) != 1) {
      return malformed(reader.line);
    }
    if (!reader.status.ok()) return reader.status;
  }
  if (csv_fini(&parser, OnField, OnRecordEnd, &reader) != 0) {
    return malformed(reader.in_record ? reader.open.line : reader.line);
  }
  return reader.status;
}

absl::StatusOr<std::vector<CsvRecord>> ReadCsvRecords(absl::string_view csv,
                                                      absl::string_view origin) {
  std::vector<CsvRecord> records;
  absl::Status status = ForEachCsvRecord(csv, origin, [&](const CsvRecord& record) {
    records.push_back(record);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return records;
}

absl::Status ForEachCsvRow(
    absl::string_view csv, absl::string_view origin, std::size_t columns,
    const std::function<absl::Status(std::size_t, const std::vector<absl::string_view>&)>& row) {
  bool header = true;
  std::vector<absl::string_view> cells;
  return ForEachCsvRecord(csv, origin, [&](const CsvRecord& record) {
    if (header) {
      header = false;
      return absl::OkStatus();
    }
    if (record.cells.size() != columns) {
      return absl::InvalidArgumentError(absl::StrCat(origin, ":", record.line, ": expected ",
                                                     columns, " cells, got ", record.cells.size()));
    }
    cells.assign(record.cells.begin(), record.cells.end());
    return row(record.line, cells);
  });
}

}  // namespace carbonroute
