// File: keda/keda_forecast.h
//
// The carbon intensity forecast in the shape Azure's carbon-aware-keda-operator
// reads from a ConfigMap (its `carbonIntensityForecastDataSource.localConfigMap`),
// the shape Azure's kubernetes-carbon-intensity-exporter writes
// (https://github.com/Azure/kubernetes-carbon-intensity-exporter, pkg/exporter/configmap.go;
// the operator: https://github.com/Azure/carbon-aware-keda-operator,
// controllers/carbon_forecast_fetcher.go):
//   binaryData[key]  a JSON array of the Carbon Aware SDK's EmissionsDataDTO,
//                    {location, timestamp (RFC 3339), duration (whole minutes),
//                    value (gCO2eq/kWh)}, by timestamp: the observed readings
//                    of the past `history` (the operator's eco-mode rule looks
//                    back over past minutes), then the cached forecast from the
//                    slot covering now on (the same points as /api/v1/forecast);
//   data             lastHeartbeatTime (when written), numOfRecords,
//                    minForecast and maxForecast (the forecast's, "%f"),
//                    forecastDateTime (when the collector fetched the forecast),
//                    message ("" or why the records are partial), as the
//                    exporter names them (its times are Go's time.String();
//                    these are RFC 3339, which no reader of the operator parses).
// The operator takes the first record with timestamp ≤ now < timestamp +
// duration, so records never overlap and every duration is at least a minute.
//
// Errors: the CarbonAwareData's (the cache could not be read).
// Thread safety: pure functions over the data.
#ifndef CARBONROUTE_KEDA_KEDA_FORECAST_H_
#define CARBONROUTE_KEDA_KEDA_FORECAST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "carbon_aware/carbon_aware_api.h"

namespace carbonroute::keda {

// One EmissionsDataDTO.
struct ForecastRecord {
  absl::Time timestamp;
  int64_t duration_minutes = 0;
  double value = 0;  // gCO2eq/kWh
  bool operator==(const ForecastRecord&) const = default;
};

struct KedaForecast {
  std::string location;  // as the configuration names it ("eastus", "DE")
  std::vector<ForecastRecord> records;
  std::size_t forecast_records = 0;                       // the last this many are the forecast
  absl::Time forecast_fetched_at = absl::InfinitePast();  // InfinitePast: no forecast
  std::string message;
  bool operator==(const KedaForecast&) const = default;
};

// The forecast of `grid_location` at `now`, named `location` in the records.
absl::StatusOr<KedaForecast> ReadKedaForecast(const carbon_aware::CarbonAwareData& data,
                                              const std::string& grid_location,
                                              const std::string& location, absl::Time now,
                                              absl::Duration history);

// binaryData[key]'s JSON array.
std::string RecordsJson(const KedaForecast& forecast);

// The ConfigMap's `data` and `binaryData` (base64 of RecordsJson) as a JSON
// merge patch body (RFC 7386) written at `now`: replaces those entries, keeps
// every other key and the metadata.
std::string ConfigMapPatch(const KedaForecast& forecast, const std::string& key, absl::Time now);

// The whole ConfigMap for a create: the patch's fields, with its name,
// namespace and the label app.kubernetes.io/managed-by: carbonroute.
std::string ConfigMapObject(const KedaForecast& forecast, const std::string& name,
                            const std::string& namespace_name, const std::string& key,
                            absl::Time now);

}  // namespace carbonroute::keda

#endif  // CARBONROUTE_KEDA_KEDA_FORECAST_H_
