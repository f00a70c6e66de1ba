#include "contract/intensity_trace.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/data_files.h"
#include "contract/csv_rows.h"

namespace carbonroute {
namespace {

absl::Status LineError(absl::string_view origin, std::size_t line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(origin, ":", line, ": ", what));
}

}  // namespace

absl::StatusOr<IntensityTrace> IntensityTrace::Load(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path, "trace file");
  if (!text.ok()) return text.status();
  return Parse(*text, path);
}

absl::StatusOr<IntensityTrace> IntensityTrace::FromColumns(
    int year, std::vector<std::string> zones, const std::vector<std::vector<double>>& columns) {
  if (zones.empty() || zones.size() != columns.size() || columns[0].empty()) {
    return absl::InvalidArgumentError(absl::StrCat("a trace needs a column for each of its ",
                                                   zones.size(), " zones, got ", columns.size(),
                                                   ", and at least one hour"));
  }
  IntensityTrace trace;
  trace.year_ = year;
  trace.hours_ = columns[0].size();
  trace.zones_ = std::move(zones);
  trace.values_.resize(trace.hours_ * trace.zones_.size());
  for (std::size_t z = 0; z < columns.size(); ++z) {
    if (columns[z].size() != trace.hours_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "column ", trace.zones_[z], " has ", columns[z].size(), " hours, not ", trace.hours_));
    }
    for (std::size_t h = 0; h < trace.hours_; ++h) {
      trace.values_[h * trace.zones_.size() + z] = columns[z][h];
    }
  }
  return trace;
}

absl::StatusOr<IntensityTrace> IntensityTrace::Parse(absl::string_view csv,
                                                     absl::string_view origin) {
  IntensityTrace trace;
  absl::CivilHour first_hour;
  bool header = true;
  absl::Status status = ForEachCsvRecord(csv, origin, [&](const CsvRecord& record) {
    const std::size_t line_number = record.line;
    const std::vector<std::string>& cells = record.cells;
    if (header) {
      header = false;
      if (cells.size() < 2 || cells[0] != "datetime") {
        return LineError(origin, line_number, "header must be \"datetime\" followed by zone codes");
      }
      for (std::size_t i = 1; i < cells.size(); ++i) trace.zones_.emplace_back(cells[i]);
      // A leap year's hours, and never more cells than the text has bytes.
      trace.values_.reserve(std::min(trace.zones_.size() * 8784, csv.size()));
      return absl::OkStatus();
    }
    if (cells.size() != trace.zones_.size() + 1) {
      return LineError(
          origin, line_number,
          absl::StrCat("expected ", trace.zones_.size() + 1, " cells, got ", cells.size()));
    }
    absl::Time time;
    std::string parse_error;
    if (!absl::ParseTime(absl::RFC3339_full, cells[0], &time, &parse_error)) {
      return LineError(origin, line_number,
                       absl::StrCat("datetime \"", cells[0], "\" is not RFC 3339: ", parse_error));
    }
    const absl::CivilHour hour = absl::ToCivilHour(time, absl::UTCTimeZone());
    if (time != absl::FromCivil(hour, absl::UTCTimeZone())) {
      return LineError(origin, line_number,
                       absl::StrCat("datetime \"", cells[0], "\" is not on the hour"));
    }
    if (trace.hours_ == 0) {
      if (hour != absl::CivilHour(hour.year(), 1, 1, 0)) {
        return LineError(
            origin, line_number,
            absl::StrCat("the trace must start at 00:00 UTC on January 1, got \"", cells[0], "\""));
      }
      first_hour = hour;
      trace.year_ = static_cast<int>(hour.year());
    } else if (hour != first_hour + static_cast<int64_t>(trace.hours_)) {
      return LineError(
          origin, line_number,
          absl::StrCat("datetime \"", cells[0], "\" is not the hour after the previous row"));
    }
    if (hour.year() != trace.year_) {
      return LineError(origin, line_number, "the trace must cover a single calendar year");
    }
    for (std::size_t i = 1; i < cells.size(); ++i) {
      double value = std::numeric_limits<double>::quiet_NaN();
      if (!cells[i].empty() &&
          (!absl::SimpleAtod(cells[i], &value) || !std::isfinite(value) || value < 0)) {
        return LineError(origin, line_number,
                         absl::StrCat("zone ", trace.zones_[i - 1], ": \"", cells[i],
                                      "\" is not a non-negative number"));
      }
      trace.values_.push_back(value);
    }
    ++trace.hours_;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  if (trace.zones_.empty()) return LineError(origin, 1, "the file is empty");
  if (trace.hours_ == 0) return LineError(origin, 2, "the trace has no rows");
  return trace;
}

std::optional<std::size_t> IntensityTrace::ZoneIndex(absl::string_view zone) const {
  for (std::size_t i = 0; i < zones_.size(); ++i) {
    if (zones_[i] == zone) return i;
  }
  return std::nullopt;
}

std::size_t IntensityTrace::TraceHour(absl::Time t) const {
  const absl::CivilHour hour = absl::ToCivilHour(t, absl::UTCTimeZone());
  int day = hour.day();
  if (hour.month() == 2 && day == 29) day = 28;
  // CivilHour normalises Feb 29 of a non-leap trace year to Mar 1, hence the clamp above.
  const absl::CivilHour in_trace_year(year_, hour.month(), day, hour.hour());
  const int64_t row = in_trace_year - absl::CivilHour(year_, 1, 1, 0);
  return std::min<std::size_t>(static_cast<std::size_t>(row), hours_ - 1);
}

std::optional<double> IntensityTrace::Value(std::size_t zone_index, std::size_t row) const {
  const double value = values_[row * zones_.size() + zone_index];
  if (std::isnan(value)) return std::nullopt;
  return value;
}

}  // namespace carbonroute
