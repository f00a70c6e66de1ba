#include "keda/keda_forecast.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "base/printed_number.h"
#include "base/utc_time.h"

namespace carbonroute::keda {
namespace {

using Json = nlohmann::ordered_json;

// A record of one stored point; nullopt if it is shorter than a minute (the
// operator would never match it).
std::optional<ForecastRecord> RecordOf(const ForecastPoint& point) {
  const int64_t minutes = absl::ToInt64Minutes(point.valid_to - point.valid_from);
  if (minutes < 1) return std::nullopt;
  return ForecastRecord{point.valid_from, minutes, point.value};
}

Json DataFields(const KedaForecast& forecast, absl::Time now) {
  double low = 0, high = 0;
  if (forecast.forecast_records > 0) {
    const auto begin =
        forecast.records.end() - static_cast<std::ptrdiff_t>(forecast.forecast_records);
    const auto [min, max] = std::minmax_element(
        begin, forecast.records.end(),
        [](const ForecastRecord& a, const ForecastRecord& b) { return a.value < b.value; });
    low = min->value;
    high = max->value;
  }
  return Json{{"lastHeartbeatTime", UtcSeconds(now)},
              {"message", forecast.message},
              {"numOfRecords", std::to_string(forecast.records.size())},
              {"forecastDateTime", forecast.forecast_fetched_at == absl::InfinitePast()
                                       ? ""
                                       : UtcSeconds(forecast.forecast_fetched_at)},
              {"minForecast", absl::StrFormat("%f", low)},
              {"maxForecast", absl::StrFormat("%f", high)}};
}

Json PatchFields(const KedaForecast& forecast, const std::string& key, absl::Time now) {
  return Json{{"data", DataFields(forecast, now)},
              {"binaryData", Json{{key, absl::Base64Escape(RecordsJson(forecast))}}}};
}

}  // namespace

absl::StatusOr<KedaForecast> ReadKedaForecast(const carbon_aware::CarbonAwareData& data,
                                              const std::string& grid_location,
                                              const std::string& location, absl::Time now,
                                              absl::Duration history) {
  KedaForecast out;
  out.location = location;
  absl::StatusOr<carbon_aware::CachedForecast> forecast = data.Forecast(grid_location, now);
  if (!forecast.ok()) return forecast.status();
  // The forecast starts with the slot covering now; the observed readings end where it starts
  // (Observed returns only readings that begin before that end).
  const bool has_forecast = !forecast->points.empty();
  const absl::Time forecast_start =
      has_forecast ? std::min(now, forecast->points.front().valid_from) : now;
  absl::StatusOr<std::vector<ForecastPoint>> observed = data.Observed(
      grid_location, now - history, has_forecast ? forecast_start : now + absl::Seconds(1));
  if (!observed.ok()) return observed.status();
  absl::Time covered_to = absl::InfinitePast();
  for (const ForecastPoint& point : *observed) {
    if (point.valid_from < covered_to) continue;  // overlaps the one before
    if (std::optional<ForecastRecord> record = RecordOf(point)) {
      if (has_forecast && point.valid_to > forecast_start) {
        record->duration_minutes = absl::ToInt64Minutes(forecast_start - point.valid_from);
        if (record->duration_minutes < 1) continue;
      }
      out.records.push_back(*record);
      covered_to = point.valid_to;
    }
  }
  for (const ForecastPoint& point : forecast->points) {
    if (std::optional<ForecastRecord> record = RecordOf(point)) {
      out.records.push_back(*record);
      ++out.forecast_records;
    }
  }
  if (!has_forecast) {
    out.message = "no forecast cached yet: observed readings only";
  } else {
    out.forecast_fetched_at = forecast->fetched_at;
  }
  return out;
}

std::string RecordsJson(const KedaForecast& forecast) {
  Json records = Json::array();
  for (const ForecastRecord& record : forecast.records) {
    records.push_back({{"location", forecast.location},
                       {"timestamp", UtcSeconds(record.timestamp)},
                       {"duration", record.duration_minutes},
                       {"value", PrintedNumber(record.value)}});
  }
  return records.dump();
}

std::string ConfigMapPatch(const KedaForecast& forecast, const std::string& key, absl::Time now) {
  return PatchFields(forecast, key, now).dump();
}

std::string ConfigMapObject(const KedaForecast& forecast, const std::string& name,
                            const std::string& namespace_name, const std::string& key,
                            absl::Time now) {
  Json object{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata",
               {{"name", name},
                {"namespace", namespace_name},
                {"labels", {{"app.kubernetes.io/managed-by", "carbonroute"}}}}}};
  object.update(PatchFields(forecast, key, now));
  return object.dump();
}

}  // namespace carbonroute::keda
