// File: contract/intensity_trace.h
//
// An hourly carbon-intensity trace loaded from CSV, and the mapping of any
// instant onto it. Shape of the file (data/carbon-intensity-2022-hourly.csv):
//
//   datetime,AT,AU-NSW,...                 header: "datetime" then zone codes
//   2022-01-01T00:00:00Z,84.73,376.54,...  one row per UTC hour, gCO2eq/kWh
//
// Rows must be consecutive hours starting at 00:00 UTC on January 1 of the
// trace year. An empty cell means "no data" for that zone and hour.
//
// Mapping an instant onto the trace (TraceHour): the instant's UTC calendar
// month, day and hour are looked up in the trace year, so that seasons and
// times of day line up in any year:
//   - February 29 (leap years) reuses February 28 of the trace, hour for hour;
//     March 1 stays March 1.
//   - A trace that stops short of the year's end (the 2022 file ends at
//     2022-12-31T22:00Z, 8,759 rows) serves its last row for the missing hours.
//
// Thread safety: immutable after Load(); safe for concurrent reads.
#ifndef CARBONROUTE_CONTRACT_INTENSITY_TRACE_H_
#define CARBONROUTE_CONTRACT_INTENSITY_TRACE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace carbonroute {

class IntensityTrace {
 public:
  // Reads and validates a CSV file. kNotFound if it cannot be opened;
  // kInvalidArgument (naming the line and the value) for a malformed header,
  // a non-hourly or out-of-order datetime, a wrong number of cells or a cell
  // that is neither empty nor a non-negative number.
  static absl::StatusOr<IntensityTrace> Load(const std::string& path);
  // Same, from text; `origin` prefixes error messages.
  static absl::StatusOr<IntensityTrace> Parse(absl::string_view csv, absl::string_view origin);
  // A trace derived by a program (the simulator's), from `columns` (one per
  // zone, each of the same number of hours; NaN = no data) starting at
  // January 1 of `year`. kInvalidArgument if the sizes differ or there are
  // no zones or no hours.
  static absl::StatusOr<IntensityTrace> FromColumns(
      int year, std::vector<std::string> zones, const std::vector<std::vector<double>>& columns);

  const std::vector<std::string>& zones() const { return zones_; }
  // Index of `zone` in zones(), or nullopt.
  std::optional<std::size_t> ZoneIndex(absl::string_view zone) const;
  std::size_t hours() const { return hours_; }
  int year() const { return year_; }

  // The row index that serves instant `t` (see the mapping above).
  std::size_t TraceHour(absl::Time t) const;

  // gCO2eq/kWh of `zone_index` at `row`, or nullopt for an empty cell.
  // REQUIRES: zone_index < zones().size(), row < hours().
  std::optional<double> Value(std::size_t zone_index, std::size_t row) const;

 private:
  IntensityTrace() = default;

  int year_ = 0;
  std::size_t hours_ = 0;
  std::vector<std::string> zones_;
  std::vector<double> values_;  // row-major: values_[row * zones_.size() + zone]; NaN = no data
};

}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_INTENSITY_TRACE_H_
