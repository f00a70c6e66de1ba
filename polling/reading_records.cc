#include "polling/reading_records.h"

namespace carbonroute::polling {

cache::IntensityRecord ToRecord(const providers::Reading& reading, const IntensitySeries& series,
                                absl::Time fetched_at) {
  cache::IntensityRecord record;
  record.series = series;
  record.valid_from = reading.valid_from;
  record.valid_to = reading.valid_to;
  record.value = reading.value;
  record.kind = reading.kind;
  record.estimated = reading.estimated;
  record.fetched_at = fetched_at;
  return record;
}

std::vector<ForecastPoint> IntensityPoints(const std::vector<cache::IntensityRecord>& records) {
  std::vector<ForecastPoint> points;
  for (const cache::IntensityRecord& record : records) {
    if (record.kind != ValueKind::kGramsPerKwh) continue;
    points.push_back({record.valid_from, record.valid_to, record.value});
  }
  return points;
}

}  // namespace carbonroute::polling
