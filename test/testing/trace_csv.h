// File: test/testing/trace_csv.h
//
// The shipped carbon-intensity CSV read independently of the code under test
// (contract/intensity_trace.cc): the reference the tests compare against.
#ifndef CARBONROUTE_TEST_TESTING_TRACE_CSV_H_
#define CARBONROUTE_TEST_TESTING_TRACE_CSV_H_

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "test/testing/build_paths.h"

namespace carbonroute::testing {

inline const std::string& TraceCsvPath() {
  static const std::string* const path = new std::string(std::string(CARBONROUTE_SOURCE_DIR) +
                                                         "/data/carbon-intensity-2022-hourly.csv");
  return *path;
}

class TraceCsv {
 public:
  TraceCsv() {
    std::ifstream in(TraceCsvPath());
    std::string line;
    std::getline(in, line);
    header_ = absl::StrSplit(line, ',');
    while (std::getline(in, line)) {
      std::vector<std::string> cells = absl::StrSplit(line, ',');
      for (std::size_t i = 1; i < cells.size(); ++i) {
        double v = 0;
        if (absl::SimpleAtod(cells[i], &v)) rows_[cells[0]][header_[i]] = v;
      }
      last_datetime_ = cells[0];
    }
  }
  // The value in the row whose datetime is `datetime` (e.g. "2022-11-22T01:00:00Z").
  double At(const std::string& datetime, const std::string& zone) const {
    return rows_.at(datetime).at(zone);
  }
  // The value replay serves at `t` for a non-leap day that is not Dec 31 23:00:
  // the 2022 row of the same UTC month, day and hour.
  double ServedAt(absl::Time t, const std::string& zone) const {
    return At(absl::FormatTime("2022-%m-%dT%H:00:00Z", t, absl::UTCTimeZone()), zone);
  }
  std::vector<std::string> zones() const { return {header_.begin() + 1, header_.end()}; }
  const std::string& last_datetime() const { return last_datetime_; }

 private:
  std::vector<std::string> header_;
  std::map<std::string, std::map<std::string, double>> rows_;
  std::string last_datetime_;
};

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_TRACE_CSV_H_
