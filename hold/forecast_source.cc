#include "hold/forecast_source.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "contract/metric_names.h"
#include "model_sources/forecast_client.h"
#include "net/url.h"

namespace carbonroute::hold {

absl::StatusOr<std::vector<std::string>> CollectorForecasts::Locations() {
  std::vector<std::string> failures;
  for (const std::string& collector : collectors_) {
    model_sources::SourceResult result = model_sources::ScrapeCollectors(
        http_, {net::JoinUrl(collector, "/metrics")}, absl::Seconds(10), auth_);
    if (!result.errors.empty() && result.samples.empty()) {
      failures.push_back(std::string(result.errors.front().message()));
      continue;
    }
    std::set<std::string> locations;
    for (const model_sources::Sample& sample : result.samples) {
      if (sample.name == metric_names::kCarbonIntensity && !sample.Label("location").empty()) {
        locations.insert(sample.Label("location"));
      }
    }
    return std::vector<std::string>(locations.begin(), locations.end());
  }
  return absl::UnavailableError(
      absl::StrCat("no collector answered: ", absl::StrJoin(failures, "; ")));
}

absl::StatusOr<std::vector<ForecastPoint>> CollectorForecasts::Forecast(
    const std::string& location) {
  std::vector<std::string> failures;
  bool not_found = false;
  for (const std::string& collector : collectors_) {
    absl::StatusOr<std::vector<ForecastPoint>> points =
        model_sources::FetchForecast(collector, location, http_, auth_);
    if (points.ok()) return points;
    not_found = not_found || absl::IsNotFound(points.status());
    failures.push_back(std::string(points.status().message()));
  }
  const std::string why = absl::StrJoin(failures, "; ");
  return not_found ? absl::NotFoundError(why) : absl::UnavailableError(why);
}

}  // namespace carbonroute::hold
