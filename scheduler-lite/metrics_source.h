// File: scheduler-lite/metrics_source.h
//
// Scrapes one or more collectors' /metrics and extracts what scheduling
// needs: the current carbon-intensity readings
// (carbonroute_carbon_intensity_grams_per_kilowatt_hour with its
// valid_to companion).
//
// Errors (per URL, in ScrapeResult::errors; the other URLs still count):
//   kUnavailable / kDeadlineExceeded  the collector could not be reached
//   kFailedPrecondition               it answered with a non-200 status
//   kInvalidArgument                  its body is not valid exposition text
//
// Ownership: borrows the HttpClient. Thread safety: as the HttpClient.
#ifndef CARBONROUTE_SCHEDULER_LITE_METRICS_SOURCE_H_
#define CARBONROUTE_SCHEDULER_LITE_METRICS_SOURCE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "providers/http_client.h"
#include "scheduler-lite/exposition_parser.h"

namespace carbonroute::scheduler_lite {

// One current carbon-intensity reading as a collector exports it.
struct IntensityObservation {
  std::string location;
  std::string provider;
  std::string emissions_type;  // "average" or "marginal"
  double grams_per_kwh = 0;
  bool estimated = false;
  std::optional<absl::Time> valid_to;  // from the valid_to gauge, when exported
  std::string source;                  // the /metrics URL it came from
};

// The readings in one exposition. Non-finite values are skipped (a NaN is
// "no data", never a ranking input).
std::vector<IntensityObservation> ExtractIntensities(const Exposition& exposition,
                                                     const std::string& source);

struct ScrapeResult {
  std::vector<IntensityObservation> intensities;
  std::vector<absl::Status> errors;  // one per URL that failed, naming the URL
};

ScrapeResult ScrapeCollectors(HttpClient& http, const std::vector<std::string>& urls,
                              absl::Duration timeout);

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_SCHEDULER_LITE_METRICS_SOURCE_H_
