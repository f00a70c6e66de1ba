// File: contract/forecast_windows.h
//
// The windows of carbonroute_carbon_intensity_forecast_mean_grams_per_kilowatt_hour:
// the collector exports a time-weighted mean over each (polling/poller.cc),
// scheduler-lite reads them back by label (placement/scoring.cc). The
// labels are part of the metric contract (docs/architecture.md, docs/metrics.md).
// Thread safety: constants.
#ifndef CARBONROUTE_CONTRACT_FORECAST_WINDOWS_H_
#define CARBONROUTE_CONTRACT_FORECAST_WINDOWS_H_

#include "absl/time/time.h"

namespace carbonroute {

struct ForecastWindow {
  const char* label;  // the `window` label value
  absl::Duration length;
};

// Shortest first.
inline constexpr ForecastWindow kForecastWindows[] = {
    {"1h", absl::Hours(1)}, {"4h", absl::Hours(4)}, {"24h", absl::Hours(24)}};

}  // namespace carbonroute

#endif  // CARBONROUTE_CONTRACT_FORECAST_WINDOWS_H_
