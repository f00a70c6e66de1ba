// File: test/exporter/page_checks.h
//
// What a /metrics page must satisfy to be one snapshot of the probe series:
// for every (source, target), received_total ≤ sent_total, and a histogram's
// _count equals its +Inf bucket. For the exporter's and the prober's tests.
#ifndef CARBONROUTE_TEST_EXPORTER_PAGE_CHECKS_H_
#define CARBONROUTE_TEST_EXPORTER_PAGE_CHECKS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace carbonroute::testing {

// "" if the page is consistent, else the first broken pair and why.
inline std::string CheckProbePage(absl::string_view page) {
  std::map<std::string, double> sent, received, inf_bucket, count;
  for (absl::string_view line : absl::StrSplit(page, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t open = line.find('{');
    const std::size_t close = line.rfind('}');
    if (open == absl::string_view::npos || close == absl::string_view::npos) continue;
    const absl::string_view name = line.substr(0, open);
    std::string labels(line.substr(open + 1, close - open - 1));
    double value = 0;
    if (!absl::SimpleAtod(line.substr(close + 2), &value)) return absl::StrCat("bad line: ", line);
    if (name == "carbonroute_probe_sent_total") sent[labels] = value;
    if (name == "carbonroute_probe_received_total") received[labels] = value;
    if (name == "carbonroute_probe_rtt_seconds_count") count[labels] = value;
    constexpr absl::string_view kInf = ",le=\"+Inf\"";
    if (name == "carbonroute_probe_rtt_seconds_bucket" && absl::EndsWith(labels, kInf)) {
      inf_bucket[labels.substr(0, labels.size() - kInf.size())] = value;
    }
  }
  for (const auto& [labels, n] : received) {
    if (!sent.contains(labels)) return absl::StrCat(labels, ": received_total without sent_total");
    if (n > sent[labels]) {
      return absl::StrCat(labels, ": received_total ", n, " > sent_total ", sent[labels]);
    }
  }
  for (const auto& [labels, n] : count) {
    if (!inf_bucket.contains(labels) || inf_bucket[labels] != n) {
      return absl::StrCat(labels, ": _count ", n, " != +Inf bucket ", inf_bucket[labels]);
    }
  }
  return "";
}

// The sum of every sample of `name` (a family without labels' suffixes).
inline uint64_t SumOf(absl::string_view page, absl::string_view name) {
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(page, '\n')) {
    if (!absl::StartsWith(line, absl::StrCat(name, "{"))) continue;
    double value = 0;
    if (absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) sum += value;
  }
  return static_cast<uint64_t>(sum);
}

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_EXPORTER_PAGE_CHECKS_H_
